#pragma once
// What pk-lbm writes besides its summary: checkpoints' header and figures, and the fields as
// VTK image data (one .vti, or a .pvti naming one piece a rank) and HDF5.
#include "options.hpp"

#include <pk/core/checkpoint.hpp>
#include <pk/lbm/checkpoint.hpp>
#include <pk/lbm/fields.hpp>
#include <pk/lbm/vti.hpp>

#include <cstdio>
#include <map>
#include <string>

#include <sys/resource.h>

#if PK_ENABLE_MPI
#include <pk/lbm/distributed_solver.hpp>
#include <pk/mpi/agreement.hpp>
#include <pk/mpi/communicator.hpp>
#endif
#if PK_ENABLE_HDF5
#include <pk/hdf5/fields.hpp>
#else
#define PK_ENABLE_HDF5 0
#endif

namespace pk::lbm::app {

// The header of this run's checkpoints, before the solver's state is added.
inline pk::CheckpointHeader run_header(const std::string& space, const Geometry& geometry, const Parameters& parameters,
                                       const Options& options) {
  pk::CheckpointHeader header;
  header.program = "pk-lbm";
  header.space = space;
  add_run_options(header, geometry, parameters, options.precision);
  return header;
}

// The checkpoint figures of a run's record, and a line on stdout: the last checkpoint's
// size, write time and the host memory it took besides the run's own (one direction's
// buffer on a device space, none on a host one), and the process's peak resident memory.
template <class Solver>
void report_checkpoints(const pk::CheckpointFiles& files, const Solver& solver, std::map<std::string, double>& metrics,
                        bool print) {
  if (files.written() == 0) return;
  using Storage = typename Solver::storage_type;
  constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Solver::memory_space>::accessible;
  const double buffer = on_host ? 0.0 : static_cast<double>(solver.lattice().extent(0) * sizeof(Storage));
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  metrics["checkpoints"] = files.written();
  metrics["checkpoint_bytes"] = static_cast<double>(files.last_bytes());
  metrics["checkpoint_seconds"] = files.last_seconds();
  metrics["checkpoint_host_buffer_bytes"] = buffer;
  metrics["peak_host_resident_bytes"] = 1024.0 * usage.ru_maxrss;
  if (print)
    std::printf("  checkpoints: %d written to %s, the last %.4g GB in %.3f s (%.3g GB/s), host buffer %.3g GB\n",
                files.written(), files.path().c_str(), files.last_bytes() / 1e9, files.last_seconds(),
                files.last_bytes() / 1e9 / files.last_seconds(), buffer / 1e9);
}

#if PK_ENABLE_HDF5
// Writes `fields`, the box of the lattice at `origin`, to the step's .h5 and its .xmf, every
// rank its box (comm: nullptr for one process).
inline void write_h5(const pk::mpi::Communicator* comm, const std::string& path, const Geometry& geometry,
                     const std::array<int, 3>& origin, const HostFields& fields) {
  std::vector<std::uint8_t> types;
  for (int z = 0; z < fields.nz; ++z)
    for (int y = 0; y < fields.ny; ++y)
      for (int x = 0; x < fields.nx; ++x)
        types.push_back(static_cast<std::uint8_t>(geometry.at(origin[0] + x, origin[1] + y, origin[2] + z)));
  pk::hdf5::write_fields(comm, path, {geometry.nx(), geometry.ny(), geometry.nz()},
                         {origin, {fields.nx, fields.ny, fields.nz}},
                         {{"density", 1, fields.density.data()},
                          {"velocity", 3, fields.velocity.data()},
                          {"cell_type", 1, nullptr, types.data()}},
                         fields.step);
}
#endif

inline std::string padded(std::int64_t step) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%08lld", static_cast<long long>(step));
  return buffer;
}

#if PK_ENABLE_MPI
// Writes this rank's slab (and the next rank's first layer) as a .vti piece and, from rank 0,
// the .pvti that names them all.
template <class Solver>
void write_pieces(const pk::mpi::Communicator& world, const Solver& solver, const std::string& out,
                  const std::string& stem) {
  const auto piece_name = [&](int rank) { return stem + "-" + std::to_string(rank) + ".vti"; };
  const HostFields fields = solver.piece_fields();
  pk::mpi::collectively(world, [&] {
    write_vti_piece(out + "/" + piece_name(world.rank()), solver.geometry(), solver.slab_origin(), fields);
  });
  pk::mpi::collectively(world, [&] {
    if (world.rank() != 0) return;
    std::vector<Piece> pieces;
    std::vector<std::string> files;
    for (int rank = 0; rank < world.size(); ++rank) {
      const Slab slab = slab_of(solver.geometry(), world.size(), rank, static_cast<SlabAxis>(solver.slab().axis));
      Piece piece{{0, 0, 0}, {solver.geometry().nx(), solver.geometry().ny(), solver.geometry().nz()}};
      piece.origin[slab.axis] = slab.begin;
      piece.size[slab.axis] = slab.layers() + (rank < world.size() - 1 ? 1 : 0);  // pieces share boundary points
      pieces.push_back(piece);
      files.push_back(piece_name(rank));
    }
    write_pvti(out + "/" + stem + ".pvti", solver.geometry(), fields.step, pieces, files);
  });
}

#endif

}  // namespace pk::lbm::app
