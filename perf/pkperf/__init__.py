"""perf/'s Python as one package; the scripts in perf/ are its front ends, one main() each.

records: the one loader of the JSON records, the bad-input error, a record's figure and
  whether it is higher-is-better; files: the whole-or-nothing writer; cli: what every front end
  does with its command line and its errors; charts: the one matplotlib set-up.
efficiency: how a pk-bench record is rated. portability, portability_text, portability_charts:
  the portability report (report.main). limits, plot_results, scaling_report, compare_results,
  lbm_scaling, besselk_heatmap, besselk_ops, index: the other front ends' logic, each with its main().
"""
