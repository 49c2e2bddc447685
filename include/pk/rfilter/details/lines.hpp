#pragma once
// A 1-D, 2-D or 3-D View seen as a family of lines along one axis.
#include <pk/core/error.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

namespace pk::rfilter::Details {

// Any contiguous LayoutLeft/LayoutRight view of rank 1-3 as a rank-3 view of the same
// memory: trailing extents of 1 leave both layouts' index maps unchanged.
template <class View>
auto as_rank3(const View& v) {
  using Layout = typename View::array_layout;
  static_assert(std::is_same_v<Layout, Kokkos::LayoutLeft> || std::is_same_v<Layout, Kokkos::LayoutRight>,
                "pk::rfilter: fields must be LayoutLeft or LayoutRight views");
  static_assert(View::rank >= 1 && View::rank <= 3, "pk::rfilter: fields must have rank 1, 2 or 3");
  require(v.span_is_contiguous(), "recursive filter: the field view must be contiguous (no padding, no subview)");
  using Value = typename View::value_type;
  using Rank3 = Kokkos::View<Value***, Layout, typename View::memory_space, Kokkos::MemoryUnmanaged>;
  return Rank3(v.data(), v.extent(0), View::rank > 1 ? v.extent(1) : 1, View::rank > 2 ? v.extent(2) : 1);
}

// Lines along `axis` of a rank-3 field. Line q runs along the axis; consecutive q are
// neighbours along the faster-varying other axis, so threads that hold consecutive lines
// touch consecutive addresses whenever the axis itself is not the contiguous one.
template <class Layout>
struct LineGeometry {
  int axis = 0;
  int length = 0;     // entries per line
  int fast_axis = 0;  // of the two other axes, the one with the smaller stride
  int slow_axis = 0;
  int fast_extent = 1;
  long lines = 0;
  bool axis_is_contiguous = false;  // lines lie along the stride-1 axis
  // Distances in memory between neighbours along the axis and the two others (scalars
  // rather than an array indexed by axis, which a GPU kernel would copy to local memory).
  long axis_step = 0, fast_step = 0, slow_step = 0;

  LineGeometry() = default;
  LineGeometry(int axis_, const int extents[3]) : axis(axis_) {
    const bool left = std::is_same_v<Layout, Kokkos::LayoutLeft>;
    int others[2], count = 0;
    for (int d = 0; d < 3; ++d)
      if (d != axis) others[count++] = d;
    fast_axis = left ? others[0] : others[1];
    slow_axis = left ? others[1] : others[0];
    fast_extent = extents[fast_axis];
    length = extents[axis];
    lines = static_cast<long>(extents[fast_axis]) * extents[slow_axis];
    axis_is_contiguous = axis == (left ? 0 : 2);
    long step[3];
    for (int d = 0; d < 3; ++d) {
      step[d] = 1;
      for (int e = left ? 0 : d + 1; e < (left ? d : 3); ++e) step[d] *= extents[e];
    }
    axis_step = step[axis];
    fast_step = step[fast_axis];
    slow_step = step[slow_axis];
  }

  // The rank-3 index of entry j of line q.
  KOKKOS_INLINE_FUNCTION void index(long q, int j, int i[3]) const {
    i[axis] = j;
    i[fast_axis] = static_cast<int>(q % fast_extent);
    i[slow_axis] = static_cast<int>(q / fast_extent);
  }
  // Where entry 0 of line q lies in the (contiguous) field's memory.
  KOKKOS_INLINE_FUNCTION long offset(long q) const {
    return (q % fast_extent) * fast_step + (q / fast_extent) * slow_step;
  }
};

template <class View>
LineGeometry<typename View::array_layout> line_geometry(const View& field3, int axis) {
  require(axis >= 0 && axis < 3, "recursive filter: axis must be 0, 1 or 2 (got " + std::to_string(axis) + ")");
  const int extents[3] = {static_cast<int>(field3.extent(0)), static_cast<int>(field3.extent(1)),
                          static_cast<int>(field3.extent(2))};
  return LineGeometry<typename View::array_layout>(axis, extents);
}

}  // namespace pk::rfilter::Details
