// pk-besselk-accuracy: K_nu(x) and log K_nu(x) from pk::besselk, GSL and Boost.Math on
// every point of the mpmath reference table; max and median errors per region, side by
// side. Writes besselk-accuracy-regions-{ours,gsl,boost}.json and a per-point CSV for
// perf/besselk_heatmap.py.
#include <pk/app/cli.hpp>
#include <pk/app/results.hpp>
#include <pk/app/run_app.hpp>
#include <pk/app/table.hpp>
#include <pk/besselk/besselk.hpp>
#include <pk/besselk/independent.hpp>
#include <pk/besselk/reference.hpp>
#include <pk/core/atomic_file.hpp>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  return pk::run_app("pk-besselk-accuracy", [&] {
    namespace bk = pk::besselk;
    std::string reference_path = pk::besselk::locate_reference(PK_BESSELK_REFERENCE), out = "perf/results";
    CLI::App cli{"Accuracy of K_nu and log K_nu against the mpmath reference, beside GSL and Boost."};
    cli.add_option("--reference", reference_path, "reference table (nu x log_K K per line)");
    cli.add_option("--out", out, "directory for the result JSONs and besselk-accuracy-points.csv");
    if (!pk::parse_command_line(cli, argc, argv)) return 0;
    const auto reference = bk::read_reference(reference_path);
    const std::size_t n = reference.size();

    struct Implementation {
      std::string key;
      std::vector<double> log_k, k;
    };
    std::vector<Implementation> impls{{"ours", {}, {}}, {"gsl", {}, {}}, {"boost", {}, {}}};
    for (auto& impl : impls) impl.log_k.resize(n), impl.k.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double nu = reference[i].nu, x = reference[i].x;
      const auto ours = bk::evaluate(nu, x);
      impls[0].log_k[i] = ours.log_value, impls[0].k[i] = ours.value;
      impls[1].log_k[i] = bk::gsl_log_bessel_k(nu, x), impls[1].k[i] = bk::gsl_bessel_k(nu, x);
      impls[2].log_k[i] = bk::boost_log_bessel_k(nu, x), impls[2].k[i] = bk::boost_bessel_k(nu, x);
    }

    pk::Table table({"region", "points", "ours max log", "gsl max log", "boost max log", "ours max K", "gsl max K",
                     "boost max K", "ours med K", "gsl med K", "boost med K", "gsl/boost unanswered"});
    // One record per implementation (kernel besselk-accuracy, case "regions", the
    // implementation in the space field), so that plot_results.py sets them side by side.
    std::vector<pk::ResultRecord> records;
    for (const auto& impl : impls)
      records.push_back({"besselk-accuracy",
                         "regions",
                         impl.key,
                         "host, mpmath table of " + std::to_string(n) + " points",
                         pk::command_line(argc, argv),
                         {}});
    for (const auto& region : bk::accuracy_regions()) {
      std::vector<bk::ErrorSummary> s;
      for (std::size_t m = 0; m < impls.size(); ++m) {
        s.push_back(bk::summarize(reference, impls[m].log_k, impls[m].k, region));
        const auto put = [&](const std::string& name, double v) {
          if (std::isfinite(v)) records[m].metrics[region.key + "." + name] = v;  // a median over no points is left out
        };
        put("max_rel_error_log_k", s.back().max_log);
        put("median_rel_error_log_k", s.back().median_log);
        put("max_rel_error_k", s.back().max_k);
        put("median_rel_error_k", s.back().median_k);
      }
      const auto f = [](double v) { return pk::format_number(v, 2); };
      table.add_row({region.name, std::to_string(s[0].points + s[0].unanswered), f(s[0].max_log), f(s[1].max_log),
                     f(s[2].max_log), f(s[0].max_k), f(s[1].max_k), f(s[2].max_k), f(s[0].median_k), f(s[1].median_k),
                     f(s[2].median_k), std::to_string(s[1].unanswered) + "/" + std::to_string(s[2].unanswered)});
    }
    table.print(std::cout);
    std::cout << "log columns: |d log K| / max(1, |log K|); K columns: |dK| / K where K is a normal double.\n";
    for (const auto& record : records) std::cerr << "wrote " << pk::write_result(record, out) << '\n';

    const std::string csv = (std::filesystem::path(out) / "besselk-accuracy-points.csv").string();
    pk::write_file(csv, [&](std::ostream& points) {
      points << "nu,x,ours_log,gsl_log,boost_log,ours_k,gsl_k,boost_k\n";
      points.precision(3);
      for (std::size_t i = 0; i < n; ++i) {
        const auto& p = reference[i];
        points << p.nu << ',' << p.x;
        // nan: no answer (a library's reported error), or K outside the normal doubles.
        for (const auto& impl : impls)
          points << ',' << (std::isnan(impl.log_k[i]) ? NAN : bk::log_k_error(impl.log_k[i], p.log_k));
        for (const auto& impl : impls) points << ',' << (std::isnan(impl.k[i]) ? NAN : bk::k_error(impl.k[i], p.k));
        points << '\n';
      }
    });
    std::cerr << "wrote " << csv << '\n';
    return 0;
  });
}
