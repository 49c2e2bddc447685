#pragma once
// 3D-Var checkpoints (pk/core/checkpoint.hpp): CG's state between iterations (x, r, p as
// sections, r . r exactly as a hexadecimal float, the iteration count as the step), from
// which conjugate_gradient resumes bit for bit (CgControl::resume) on the same space and
// ranks.
#include <pk/core/checkpoint.hpp>
#include <pk/core/error.hpp>
#include <pk/rfilter/conjugate_gradient.hpp>

#include <Kokkos_Core.hpp>

#include <string>

namespace pk::rfilter {

// Adds the state's step, values and sections to `header`.
template <class Vector>
void describe_state(CheckpointHeader& header, const CgState<Vector>& state) {
  header.step = state.iterations;
  header.add_value("rr", state.rr);
  for (const char* name : {"x", "r", "p"}) header.sections.push_back({name, state.x.extent(0) * sizeof(double)});
}

template <class Vector>
void write_state(CheckpointWriter& writer, const CgState<Vector>& state) {
  for (const Vector* v : {&state.x, &state.r, &state.p}) {
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, *v);
    writer.write(host.data(), host.size() * sizeof(double));
  }
}

// The state a checkpoint holds, in vectors of `length` on `space`.
template <class ExecutionSpace>
CgState<Kokkos::View<double*, Kokkos::LayoutLeft, typename ExecutionSpace::memory_space>> read_state(
    CheckpointReader& reader, const ExecutionSpace& space, std::size_t length) {
  using Vector = Kokkos::View<double*, Kokkos::LayoutLeft, typename ExecutionSpace::memory_space>;
  const CheckpointHeader& h = reader.header();
  const char* names[] = {"x", "r", "p"};
  CgState<Vector> state;
  Vector* vectors[] = {&state.x, &state.r, &state.p};
  require(h.sections.size() == 3, "--restart ", reader.path(), ": expected the sections x, r and p");
  for (int i = 0; i < 3; ++i) {
    require(h.sections[i].name == names[i] && h.sections[i].bytes == length * sizeof(double), "--restart ",
            reader.path(), ": section ", i + 1, " is not ", names[i], " of ", length, " values");
    *vectors[i] = Vector(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "pk::rfilter::cg::restart"), length);
    const auto host = Kokkos::create_mirror_view(*vectors[i]);
    reader.read(host.data(), length * sizeof(double));
    Kokkos::deep_copy(space, *vectors[i], host);
  }
  space.fence();
  state.rr = h.real_value("rr");
  state.iterations = static_cast<int>(h.step);
  return state;
}

}  // namespace pk::rfilter
