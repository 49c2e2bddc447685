#pragma once
// Run parameters of the LBM solver, in lattice units, and their validation.
#include <pk/core/binary16.hpp>
#include <pk/core/compact16.hpp>
#include <pk/core/error.hpp>
#include <pk/core/spaces.hpp>
#include <pk/lbm/geometry.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace pk::lbm {

// A-A: one lattice, alternating collide-in-place and stream-collide-stream kernels
// (half the memory). A-B: two lattices, pull stream-collide, swapped every step.
enum class Streaming { aa, ab };
const char* streaming_name(Streaming streaming);  // "aa", "ab"

// How the cells traversal stores an A-A lattice computing in fp32 (fp32 or fp16 storage):
// shifted (Details::slot, with a staged even step) or plain. Both take the same steps; which
// is faster depends on the device (docs/lbm.md), so by default pk::autotune picks it.
enum class AaStorage { tuned, plain, shifted };

// How the step kernels cover the lattice. rows: a thread per x-row, runs of plain cells in
// SIMD loops (CPUs). cells: a thread per cell; an A-A lattice computing in fp32 may be in
// shifted storage with its even step staged per team (GPUs; see AaStorage). Either runs on
// any space, and both take identical steps.
enum class Traversal { rows, cells };
template <class ExecutionSpace>
constexpr Traversal default_traversal = runs_on_host<ExecutionSpace> ? Traversal::rows : Traversal::cells;

// The name of a precision in apps and results: "fp32", "fp64", "fp16" for pk::Binary16 or
// "fp16c" for pk::Compact16 (16-bit storage, fp32 arithmetic).
template <class Precision>
constexpr const char* precision_name = std::is_same_v<Precision, double>     ? "fp64"
                                       : std::is_same_v<Precision, float>    ? "fp32"
                                       : std::is_same_v<Precision, Binary16> ? "fp16"
                                                                             : "fp16c";

// The names of every precision, as options and results spell them.
inline const std::vector<std::string> precision_names = {precision_name<float>, precision_name<double>,
                                                         precision_name<Binary16>, precision_name<Compact16>};

// Calls run(Precision{}) with the precision `name` names (one of precision_names).
template <class Run>
decltype(auto) with_precision(const std::string& name, Run&& run) {
  if (name == precision_name<double>) return run(double{});
  if (name == precision_name<Binary16>) return run(Binary16{});
  if (name == precision_name<Compact16>) return run(Compact16{});
  if (name != precision_name<float>) {
    std::string known;
    for (const std::string& precision : precision_names) known += " " + precision;
    throw Error("precision " + name + ": not one of" + known);
  }
  return run(float{});
}

// How the rows traversal (CPUs) stores an A-B step's target lattice: through the caches, or
// streaming around them (pk::convert_streaming), which saves reading each line before it is
// written once the two lattices overflow the caches and costs re-reading it from memory
// while they fit. By default pk::autotune times both on the solver's lattices.
enum class AbStores { tuned, cached, streaming };

struct Parameters {
  double tau = 0.8;  // BGK relaxation time; kinematic viscosity nu = (tau - 1/2) / 3
  Streaming streaming = Streaming::aa;
  double initial_density = 1.0;  // fluid cells at step 0
  std::array<double, 3> initial_velocity{0, 0, 0};
  double inlet_density = 1.0;   // prescribed on inlet cells
  double outlet_density = 1.0;  // prescribed on outlet cells
  double max_mach = 0.3;        // |u| / c_s allowed, before and during the run
  // Steps between health checks (NaN or non-positive density, |u|/c_s > max_mach). A check
  // reads the whole lattice once, as much as half a step. 0 turns the checks off
  // (benchmarks only).
  int check_interval = 100;
  AaStorage aa_storage = AaStorage::tuned;  // tests and comparisons force one
  AbStores ab_stores = AbStores::tuned;     // likewise
  // Teams per multiprocessor of the A-A odd step in fp32 arithmetic on GPUs (a register cap):
  // 0 times the candidates on the lattice (pk::autotune), tests force one of them.
  int aa_odd_step_teams = 0;
  // Bytes ahead of its cells at which the rows traversal (CPUs) asks for each direction's
  // lines, one of Details::Launch::rows_prefetch_bytes: -1 times the candidates on the
  // lattice (pk::autotune), tests force one of them (0: none).
  int rows_prefetch_bytes = -1;
  // Steps the caller means to run, 0 when unknown. The trials of a tuned choice (pk::autotune)
  // then take at most a twentieth of them; a run too short for that, or a lattice under 2^16
  // cells, takes the choice the tuning cache holds, else the default, untimed.
  std::int64_t planned_steps = 0;

  double viscosity() const { return (tau - 0.5) / 3.0; }
};

// Throws pk::Error naming the first parameter that is out of range: tau <= 0.5 or not
// finite, densities not positive, initial or pressure-driven Mach number above max_mach.
// The pressure-driven bound is Bernoulli's: a density drop d_rho can at most accelerate the
// fluid to |u| = c_s sqrt(2 d_rho / rho), whatever the geometry.
void validate(const Parameters& parameters, const Geometry& geometry);

}  // namespace pk::lbm
