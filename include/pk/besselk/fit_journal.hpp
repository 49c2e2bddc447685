#pragma once
// A long maximum-likelihood fit's evaluations, kept in a file as they are made, so that a fit
// stopped by a signal, a failure or the end of a batch job resumes where it stopped: BOBYQA,
// started again from the same point, asks for the same parameters, and the journal answers
// them without evaluating the likelihood, up to where the stopped fit got.
#include <pk/besselk/optimize.hpp>

#include <map>
#include <string>
#include <vector>

namespace pk::besselk {

class FitJournal {
 public:
  // `identity`: what the likelihood's values depend on (the data, or how it was generated);
  // a journal of another identity is refused.
  explicit FitJournal(std::string identity);

  // Takes the evaluations of the journal at `path`. pk::Error when the file cannot be read,
  // is not a journal, or holds another identity.
  void read(const std::string& path);

  // The evaluations read are recalled; with a `path`, every evaluation the settings make
  // from now on rewrites the journal there (atomically), after the settings' own progress.
  void attach(OptimizerSettings& settings, const std::string& path);

  // Evaluations held (read, then made), and those recalled instead of evaluated.
  std::size_t size() const { return values_.size(); }
  int recalled() const { return recalled_count_; }

 private:
  void write(const std::string& path) const;

  std::string identity_;
  // Recalled: only what was read, the same on every rank of a distributed fit (a point made
  // in this run and asked again is evaluated again, on every rank alike).
  std::map<Parameters, double> recalled_;
  std::map<Parameters, double> values_;
  std::vector<Parameters> order_;  // as made, so that the file reads as the fit went
  int recalled_count_ = 0;
};

}  // namespace pk::besselk
