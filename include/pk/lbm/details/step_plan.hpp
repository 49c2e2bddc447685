#pragma once
// What a solver's steps launch, chosen once per lattice: the storage (plain or shifted), whether
// streaming steps run split by walls, whether A-B steps of the rows traversal store around the
// caches and how far ahead that traversal prefetches, and the kernel each step takes for them
// (pk::lbm::Solver holds one StepPlan).
#include <pk/core/error.hpp>
#include <pk/core/tuning.hpp>
#include <pk/lbm/details/grid.hpp>
#include <pk/lbm/details/launch.hpp>
#include <pk/lbm/details/staged_collide.hpp>
#include <pk/lbm/details/storage.hpp>
#include <pk/lbm/details/stream_collide.hpp>
#include <pk/lbm/details/stream_collide_rows.hpp>
#include <pk/lbm/geometry.hpp>
#include <pk/lbm/parameters.hpp>
#include <pk/lbm/slabs.hpp>

#include <pk/core/host_copies.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace pk::lbm::Details {

// The grid of `geometry` on `space`: cell types (the non-solid cells of `ghosts` stored as
// ghost cells, never updated) and the walls word of every cell.
template <class ExecutionSpace>
Grid<typename ExecutionSpace::memory_space> build_grid(const ExecutionSpace& space, const Geometry& geometry,
                                                       const GhostLayers& ghosts) {
  using MemorySpace = typename ExecutionSpace::memory_space;
  using G = Grid<MemorySpace>;
  const int cells = static_cast<int>(geometry.cell_count());
  Kokkos::View<std::uint8_t*, MemorySpace> cell_type(Kokkos::view_alloc(space, "pk::lbm::cell_type"), cells);
  auto cell_type_host = pk::host_mirror(cell_type);
  const int last_layer = geometry.extent(ghosts.axis) - 1;
  int c = 0;
  for (int z = 0; z < geometry.nz(); ++z)
    for (int y = 0; y < geometry.ny(); ++y)
      for (int x = 0; x < geometry.nx(); ++x, ++c) {
        const CellType type = geometry.cells()[c];
        const int layer = ghosts.axis == 0 ? x : ghosts.axis == 1 ? y : z;
        const bool ghost = (ghosts.low && layer == 0) || (ghosts.high && layer == last_layer);
        const bool beside_wrap = (ghosts.wraps_low && layer == 1) || (ghosts.wraps_high && layer == last_layer - 1);
        cell_type_host(c) = static_cast<std::uint8_t>(type == CellType::solid ? solid_flag
                                                      : ghost                 ? solid_flag | G::ghost_bit
                                                      : beside_wrap ? static_cast<std::uint8_t>(type) | G::walls_bit
                                                                    : static_cast<std::uint8_t>(type));
      }
  Kokkos::deep_copy(space, cell_type, cell_type_host);
  space.fence();  // the host copy goes out of scope
  Kokkos::View<std::uint32_t*, MemorySpace> walls(Kokkos::view_alloc(space, "pk::lbm::walls"), cells);
  const G grid{cell_type,
               walls,
               {},
               geometry.nx(),
               geometry.ny(),
               geometry.nz(),
               geometry.periodic(0),
               geometry.periodic(1),
               geometry.periodic(2)};
  const Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<int>> all(space, 0, cells);
  Kokkos::parallel_for("pk::lbm::build_walls", all, BuildWalls<MemorySpace>{grid});
  Kokkos::parallel_for("pk::lbm::mark_walls", all, MarkWalls<MemorySpace>{grid});
  return grid;
}

template <class ExecutionSpace, class Storage, Traversal traversal>
class StepPlan {
 public:
  using memory_space = typename ExecutionSpace::memory_space;
  using real_type = arithmetic_t<Storage>;
  using Distributions = Lattice<Storage, memory_space>;

  // Shifted storage is for A-A lattices of the cells traversal computing in fp32: the staged
  // even step's register cap (Launch) is sized for it, and fp64 was faster plain.
  static constexpr bool can_shift = traversal == Traversal::cells && std::is_same_v<real_type, float>;

  StepPlan(const ExecutionSpace& space, const Parameters& parameters, int cells)
      : space_(space), parameters_(parameters), cells_(cells) {}

  // Whether the lattice is in shifted storage (slot()), as Parameters::aa_storage asks or,
  // for `tuned`, for fp32 storage (what PK_AUTOTUNE=0 takes), and plain for fp16 storage
  // (shifted, its even step misaligns every 2-byte access: docs/lbm.md). Device spaces time
  // fp32's two storages on the solver's own lattice (choose_tuned_storage): it is allocated
  // shifted, with the margins, until then. Call before any allocation.
  void choose_shifted_storage() {
    const AaStorage asked = parameters_.aa_storage;
    require(asked != AaStorage::shifted || can_shift,
            "pk::lbm::Solver: shifted storage needs the cells traversal and fp32 arithmetic (fp32 or fp16 storage)");
    if constexpr (can_shift) {
      if (parameters_.streaming != Streaming::aa) return;
      shifted_ = asked == AaStorage::tuned ? std::is_same_v<Storage, float> : asked == AaStorage::shifted;
      tunes_storage_ = asked == AaStorage::tuned && std::is_same_v<Storage, float> && !runs_on_host<ExecutionSpace>;
    }
  }

  // For a tuned fp32 storage on a device space, pk::autotune's choice between shifted (1, the
  // default) and plain (0), timed on the solver's lattice (tuned_on_lattice): the two storages
  // rank differently on lattices of different sizes (docs/lbm.md). Returns whether the choice
  // is plain, whose lattice the solver then allocates again without the margins.
  template <class Restart, class TrialPairs>
  bool choose_tuned_storage(std::size_t slots, const char* precision, const Restart& restart,
                            const TrialPairs& trial_pairs) {
    if (!tunes_storage_) return false;
    const std::string key = std::string("lbm.aa.shifted.") + precision + ".slots=" + std::to_string(slots);
    shifted_ = tuned_on_lattice(
                   key, {1, 0}, [&](int candidate) { shifted_ = candidate == 1; }, restart, trial_pairs) == 1;
    return !shifted_;
  }

  // Whether streaming steps (A-B, A-A odd) of the whole lattice or of whole x-y planes of it
  // run in two passes: the cells the open path can step (OpenCells: no wall link, no
  // periodic y or z face), then the groups of cells with such walls (WalledCells,
  // cell_group), listed into grid.walled_groups. This pays where the step is bound by its
  // instructions, fp16 storage on GPUs, on lattices large enough that the second launch
  // costs less than the tests it saves, and where few groups have walls (docs/lbm.md).
  void choose_split_by_walls(Grid<memory_space>& grid) {
    if constexpr (can_split_by_walls) {
      if (cells_ < (1 << 19)) return;
      constexpr int group = cell_group<ExecutionSpace>;
      const int groups = (cells_ + group - 1) / group;
      using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<int>>;
      int walled = 0;
      Kokkos::parallel_scan("pk::lbm::count_walled_groups", Range(space_, 0, groups),
                            ListWalledGroups<ExecutionSpace>{grid}, walled);
      if (3 * walled > groups) return;  // walls reach most groups: one pass is faster
      grid.walled_groups =
          Kokkos::View<int*, memory_space>(Kokkos::view_alloc(space_, "pk::lbm::walled_groups"), walled);
      split_by_walls_ = true;
      if (walled == 0) return;
      Kokkos::parallel_scan("pk::lbm::list_walled_groups", Range(space_, 0, groups),
                            ListWalledGroups<ExecutionSpace>{grid});
      Kokkos::parallel_for("pk::lbm::mark_walled_groups", Range(space_, 0, walled * group),
                           MarkWalledGroups<ExecutionSpace>{grid});
    }
  }

  // Whether A-B steps of the rows traversal store around the caches: as
  // Parameters::ab_stores asks, or for `tuned` timed on the solver's own lattices
  // (tuned_on_lattice). Streaming stores save a read of each target line where the lattices
  // overflow the caches and cost one where they fit, so they are timed rather than derived
  // (docs/lbm.md).
  template <class Restart, class TrialPairs>
  void choose_streaming_stores(std::size_t slots, const char* precision, const Restart& restart,
                               const TrialPairs& trial_pairs) {
    if constexpr (traversal == Traversal::rows) {
      if (parameters_.streaming != Streaming::ab) return;
      if (parameters_.ab_stores != AbStores::tuned) {
        streaming_stores_ = parameters_.ab_stores == AbStores::streaming;
        return;
      }
      const std::string key = std::string("lbm.ab.streaming.") + precision + ".slots=" + std::to_string(slots);
      streaming_stores_ = tuned_on_lattice(
          key, {0, 1}, [&](int candidate) { streaming_stores_ = candidate == 1; }, restart, trial_pairs);
    }
  }

  // The launch choices timed once the lattice's storage is settled: the rows traversal's
  // prefetch first (the streaming stores' trials then run with it), the A-B stores, the A-A
  // odd step's teams; each as the Parameters ask, or timed on the solver's own lattices.
  template <class Restart, class TrialPairs>
  void choose_launches(std::size_t slots, const char* precision, const Restart& restart,
                       const TrialPairs& trial_pairs) {
    choose_rows_prefetch(slots, precision, restart, trial_pairs);
    choose_streaming_stores(slots, precision, restart, trial_pairs);
    choose_odd_step_teams(slots, precision, restart, trial_pairs);
  }

  // The bytes ahead at which the rows traversal prefetches each direction's lines, one of
  // Launch::rows_prefetch_bytes: as Parameters::rows_prefetch_bytes asks, or for -1 timed on
  // the solver's own lattices (tuned_on_lattice). A lattice that fits the caches gains nothing
  // and loses little; one that does not streams 19 to 38 arrays per thread (docs/lbm.md).
  template <class Restart, class TrialPairs>
  void choose_rows_prefetch(std::size_t slots, const char* precision, const Restart& restart,
                            const TrialPairs& trial_pairs) {
    const int asked = parameters_.rows_prefetch_bytes;
    const std::vector<int> choices =
        checked_candidates(typename Launch<ExecutionSpace>::rows_prefetch_bytes{}, asked, -1, "rows_prefetch_bytes");
    if constexpr (traversal == Traversal::rows) {
      if (asked != -1) {
        prefetch_bytes_ = asked;
        return;
      }
      const std::string key = std::string("lbm.rows.prefetch.") + streaming_name(parameters_.streaming) + "." +
                              precision + ".slots=" + std::to_string(slots);
      prefetch_bytes_ = tuned_on_lattice(
          key, choices, [&](int candidate) { prefetch_bytes_ = candidate; }, restart, trial_pairs);
    }
  }

  // The teams per multiprocessor of the A-A odd step in fp32 arithmetic on GPUs, one of
  // Launch::odd_step_teams: as Parameters::aa_odd_step_teams asks, or for 0 timed on the
  // solver's own lattice (tuned_on_lattice). Lattices under 2^18 cells keep the first: their
  // steps take microseconds, and the trials (2^22 cell updates each) would launch thousands.
  template <class Restart, class TrialPairs>
  void choose_odd_step_teams(std::size_t slots, const char* precision, const Restart& restart,
                             const TrialPairs& trial_pairs) {
    const int asked = parameters_.aa_odd_step_teams;
    const std::vector<int> choices = checked_candidates(OddStepTeams{}, asked, 0, "aa_odd_step_teams");
    if constexpr (tunes_odd_step) {
      if (parameters_.streaming != Streaming::aa) return;
      if (asked != 0) {
        odd_step_teams_ = asked;
        return;
      }
      if (cells_ < (1 << 18)) return;
      const std::string key = std::string("lbm.aa.odd_step_teams.") + precision + ".slots=" + std::to_string(slots);
      odd_step_teams_ = tuned_on_lattice(
          key, choices, [&](int candidate) { odd_step_teams_ = candidate; }, restart, trial_pairs);
    }
  }

  // Pairs of steps on the whole lattice, for the tuning trials, each reading what the one
  // before stored: A-B into f_next and back, or A-A's even and odd steps.
  void step_pairs(long pairs, const Grid<memory_space>& grid, const Distributions& f,
                  const Distributions& f_next) const {
    for (long pair = 0; pair < pairs; ++pair) {
      if (parameters_.streaming == Streaming::ab) {
        launch<Kernel::ab_stream_collide>("pk::lbm::ab::trial", grid, f, f_next, nullptr);
        launch<Kernel::ab_stream_collide>("pk::lbm::ab::trial", grid, f_next, f, nullptr);
      } else {
        launch<Kernel::aa_collide>("pk::lbm::aa::trial", grid, f, f, nullptr);
        launch<Kernel::aa_stream_collide_stream>("pk::lbm::aa::trial", grid, f, f, nullptr);
      }
    }
  }

  bool shifted() const { return shifted_; }
  bool split_by_walls() const { return split_by_walls_; }
  bool streaming_stores() const { return streaming_stores_; }
  int odd_step_teams() const { return odd_step_teams_; }
  int rows_prefetch_bytes() const { return prefetch_bytes_; }

  // Slots per direction: the cells, shifted storage's margins, and a pad. On host spaces it
  // starts consecutive directions 3 cache lines apart modulo 4 KiB: unpadded, a lattice of
  // 2^k cells starts all 19 (A-B: 38) directions at the same address modulo 4 KiB, the span
  // of a CPU's L1 ways, so a row's streams evict each other. On GPUs it starts every
  // direction on a 128-byte line, so that a warp's accesses span as few lines as they can
  // (and the paired even step's words are aligned).
  int lattice_slots() const {
    int slots = cells_ + (shifted_ ? 2 * margin : 0);
    if constexpr (runs_on_host<ExecutionSpace>) {
      constexpr int period = 4096 / static_cast<int>(sizeof(Storage));
      constexpr int offset = 3 * 64 / static_cast<int>(sizeof(Storage));
      slots += ((offset - slots) % period + period) % period;
    } else {
      constexpr int line = 128 / static_cast<int>(sizeof(Storage));
      slots += (line - slots % line) % line;
    }
    return slots;
  }

  // The kernel for the lattice's storage, chosen at launch: each storage has its own
  // instantiation, so the kernels carry no run-time test of it. Box: the cells of a box, or
  // every cell (nullptr).
  template <Kernel kernel>
  void launch(const char* label, const Grid<memory_space>& grid, const Distributions& source,
              const Distributions& target, const CellBox* box) const {
    if constexpr (can_shift && kernel != Kernel::ab_stream_collide)
      if (shifted_) return launch_on<kernel, true>(label, grid, source, target, box);
    launch_on<kernel, false>(label, grid, source, target, box);
  }

 private:
  static constexpr bool can_split_by_walls = traversal == Traversal::cells && sizeof(Storage) == 2;
  // The A-A even step of an fp16 lattice in plain storage (all of it, or whole x-y planes of
  // it), cells traversal, takes two cells per thread (PairedCollide): each load and store
  // then moves 4 bytes, not 2.
  static constexpr bool can_pair = traversal == Traversal::cells && sizeof(Storage) == 2;
  // The A-A odd step in fp32 arithmetic (fp32 or fp16 storage) is register-bound: bounded
  // launches keep more of it resident per SM. fp64 A-A and A-B keep Kokkos' choice
  // (docs/lbm.md).
  using Range = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<int>>;
  template <int teams = Launch<ExecutionSpace>::teams_per_multiprocessor>
  using AaPolicy = Kokkos::RangePolicy<
      ExecutionSpace, Kokkos::IndexType<int>,
      std::conditional_t<std::is_same_v<real_type, float>, typename Launch<ExecutionSpace>::template BoundsFor<teams>,
                         Kokkos::LaunchBounds<>>>;
  // Launch bounds mean nothing to host spaces, and fp64 A-A keeps Kokkos' choice: one candidate.
  static constexpr bool tunes_odd_step =
      traversal == Traversal::cells && std::is_same_v<real_type, float> && !runs_on_host<ExecutionSpace>;
  using OddStepTeams = typename Launch<ExecutionSpace>::odd_step_teams;
  // The candidates of a timed choice, once the Parameters field `name` is checked to ask for
  // `timed` (pk::autotune's choice) or one of them.
  template <int... values>
  static std::vector<int> checked_candidates(std::integer_sequence<int, values...>, int asked, int timed,
                                             const char* name) {
    const std::vector<int> choices{values...};
    require(asked == timed || std::count(choices.begin(), choices.end(), asked) > 0, "pk::lbm::Solver: ", name, " ",
            asked, " is not ", timed, " (timed) or one of the candidates");
    return choices;
  }

  // A kernel over the cells [begin, end) of a whole run of planes: the A-B step with Kokkos'
  // launch choice, the A-A even step with Launch's bounds, the odd step with the teams chosen.
  template <Kernel kernel, class Functor>
  void parallel_for_run(const char* label, int begin, int end, const Functor& functor) const {
    if constexpr (kernel == Kernel::ab_stream_collide) {
      Kokkos::parallel_for(label, Range(space_, begin, end), functor);
    } else if constexpr (kernel == Kernel::aa_stream_collide_stream && tunes_odd_step) {
      parallel_for_teams(label, begin, end, functor, OddStepTeams{});
    } else {
      Kokkos::parallel_for(label, AaPolicy<>(space_, begin, end), functor);
    }
  }
  template <class Functor, int... teams>
  void parallel_for_teams(const char* label, int begin, int end, const Functor& functor,
                          std::integer_sequence<int, teams...>) const {
    (void)((odd_step_teams_ == teams &&
            (Kokkos::parallel_for(label, AaPolicy<teams>(space_, begin, end), functor), true)) ||
           ...);  // the first candidate that matches launches; the fold's value is not needed
  }

  // pk::autotune's choice among `candidates` for the job `key`, each put in place by
  // set(candidate) and timed on the solver's own lattices by `trial_pairs(pairs)` (step_pairs:
  // at least 2^22 cell updates); `restart()` first puts the lattice at its initial state (the
  // solver starts it again after the choice). The trials are affordable on lattices of 2^16
  // cells or more, within a twentieth of Parameters::planned_steps where that is known.
  template <class Set, class Restart, class TrialPairs>
  int tuned_on_lattice(const std::string& key, const std::vector<int>& candidates, const Set& set,
                       const Restart& restart, const TrialPairs& trial_pairs) const {
    const long pairs = std::max(1L, (1L << 22) / static_cast<long>(cells_));
    const long trial_steps = 2 * pairs * static_cast<long>(candidates.size()) * (autotune_rounds + 1);
    const bool affordable =
        cells_ >= (1 << 16) && (parameters_.planned_steps == 0 || 20 * trial_steps <= parameters_.planned_steps);
    bool started = false;  // a choice autotune has cached runs no trial and needs no start
    const auto trial = [&](int candidate) {
      if (!started) restart(), started = true;  // before autotune's untimed warm-up runs
      set(candidate);
      trial_pairs(pairs);
    };
    return autotune(space_, key, candidates, trial, affordable);
  }

  // The A-A even step in shifted fp32 storage stages rows of cells through a team's scratch;
  // a box narrower in x than a team (the layer beside a ghost layer of a slab cut along x)
  // runs per cell instead, and so does fp16, whose staged step was slower (docs/lbm.md).
  template <Kernel kernel, bool in_shifted_storage>
  static bool staged_even_step(const CellBox* box) {
    if constexpr (kernel == Kernel::aa_collide && in_shifted_storage) {
      return std::is_same_v<Storage, float> &&
             (!box || box->x1 - box->x0 >= StagedCollide<ExecutionSpace, Storage>::max_chunk);
    }
    return false;
  }

  template <Kernel kernel, bool in_shifted_storage>
  bool paired_even_step(const Distributions& source) const {
    return can_pair && kernel == Kernel::aa_collide && !in_shifted_storage && source.stride(1) % 2 == 0;
  }

  template <Kernel kernel, bool in_shifted_storage>
  void launch_on(const char* label, const Grid<memory_space>& grid, const Distributions& source,
                 const Distributions& target, const CellBox* box) const {
    using Cells = StreamCollide<ExecutionSpace, Storage, kernel, in_shifted_storage>;
    using Rows = StreamCollideRows<ExecutionSpace, Storage, kernel>;
    // A-B steps keep Kokkos' launch choice; the A-A ones take AaPolicy.
    using Policy = std::conditional_t<kernel == Kernel::ab_stream_collide, Range, AaPolicy<>>;
    const Cells cells{source,
                      target,
                      grid,
                      static_cast<real_type>(1.0 / parameters_.tau),
                      static_cast<real_type>(parameters_.inlet_density - 1.0),
                      static_cast<real_type>(parameters_.outlet_density - 1.0)};
    if constexpr (traversal == Traversal::rows) {
      if (box)
        Kokkos::parallel_for(label, Range(space_, 0, box->rows()),
                             BoxRows<Rows>{Rows{cells, streaming_stores_, prefetch_bytes_}, *box});
      else
        Kokkos::parallel_for(label, Range(space_, 0, grid.ny * grid.nz),
                             Rows{cells, streaming_stores_, prefetch_bytes_});
    } else if (staged_even_step<kernel, in_shifted_storage>(box)) {
      if constexpr (kernel == Kernel::aa_collide && in_shifted_storage)
        StagedCollide<ExecutionSpace, Storage>::launch(label, space_, cells,
                                                       box ? *box : CellBox{0, grid.nx, 0, grid.ny, 0, grid.nz});
    } else if (box && !box->whole_planes(grid.nx, grid.ny)) {
      Kokkos::parallel_for(label, Policy(space_, 0, box->cells()), BoxCells<Cells>{cells, *box});
    } else {
      // Every cell, or a box of whole x-y planes (the slabs of a run split along z): one run
      // of consecutive cells, which takes the whole lattice's kernels.
      const int plane = grid.nx * grid.ny, begin = box ? box->z0 * plane : 0, end = box ? box->z1 * plane : cells_;
      if (paired_even_step<kernel, in_shifted_storage>(source) && begin % 2 == 0) {
        if constexpr (can_pair && kernel == Kernel::aa_collide && !in_shifted_storage)
          Kokkos::parallel_for(label, AaPolicy<>(space_, begin / 2, (end + 1) / 2), PairedCollide<Cells>{cells, end});
      } else if (split_by_walls_ && kernel != Kernel::aa_collide) {
        if constexpr (can_split_by_walls && kernel != Kernel::aa_collide) {
          parallel_for_run<kernel>(label, begin, end, OpenCells<Cells>{cells});
          const int walled_cells = grid.walled_groups.extent_int(0) * cell_group<ExecutionSpace>;
          if (walled_cells > 0)
            Kokkos::parallel_for(label, Range(space_, 0, walled_cells), WalledCells<Cells>{cells, begin, end});
        }
      } else {
        parallel_for_run<kernel>(label, begin, end, cells);
      }
    }
  }

  ExecutionSpace space_;
  Parameters parameters_;
  int cells_;
  bool shifted_ = false;
  bool tunes_storage_ = false;
  bool split_by_walls_ = false;
  bool streaming_stores_ = false;
  int odd_step_teams_ = Launch<ExecutionSpace>::teams_per_multiprocessor;
  int prefetch_bytes_ = 0;  // the cells traversal's: it does not prefetch
};

}  // namespace pk::lbm::Details
