#pragma once
// What a kernel knows about a cell from its key: its integer index, its centre, the drift
// on its faces, and its direction mask (which way those faces flow, and whether the cell is
// at or above p*).
#include <pk/gbees/details/key.hpp>
#include <pk/gbees/models.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pk::gbees::Details {

// Fixed-size arrays that kernels capture by value.
struct RealArray {
  double v[max_dimension] = {};
};
struct IndexArray {
  std::int64_t v[max_dimension] = {};
};

// The cells one rank of a distributed run owns: the layers [begin, end) of axis `axis`
// (details/distribution.hpp). It also holds copies of its neighbours' cells in the
// ghost_layers layers on either side, which its step recomputes from exact copies, so that
// every cell it owns is updated as on one rank. axis < 0: one rank owns every cell.
struct Slab {
  static constexpr int ghost_layers = 2;  // the cells a cell's update reads lie within 2 layers
  int axis = -1;
  std::int64_t begin = 0, end = 0;

  KOKKOS_INLINE_FUNCTION bool owns(const KeyCodec& codec, std::uint64_t key) const { return within(codec, key, 0); }
  // Owned or a ghost: the cells this rank keeps.
  KOKKOS_INLINE_FUNCTION bool holds(const KeyCodec& codec, std::uint64_t key) const {
    return within(codec, key, ghost_layers);
  }
  // Not in the outermost ghost layer: the cells whose fluxes the owned cells' updates read.
  KOKKOS_INLINE_FUNCTION bool inner(const KeyCodec& codec, std::uint64_t key) const {
    return within(codec, key, ghost_layers - 1);
  }
  // In the slab or within `layers` layers of it.
  KOKKOS_INLINE_FUNCTION bool within(const KeyCodec& codec, std::uint64_t key, int layers) const {
    if (axis < 0) return true;
    const std::int64_t i = codec.index(key, axis);
    return i >= begin - layers && i < end + layers;
  }
};

// Grid geometry in a form kernels copy by value: cell i has centre mean + h * i.
struct Geometry {
  int n = 0;
  KeyCodec codec;
  double mean[max_dimension] = {};
  double h[max_dimension] = {};
  Slab slab;  // the cells this rank owns (all of them on one rank)

  KOKKOS_INLINE_FUNCTION bool owns(std::uint64_t key) const { return slab.owns(codec, key); }

  KOKKOS_INLINE_FUNCTION void centre(std::uint64_t key, double* x) const {
    for (int d = 0; d < n; ++d) x[d] = mean[d] + h[d] * static_cast<double>(codec.index(key, d));
  }
};

// The drift on a cell's faces: f_j at the centre of its forward face on axis j, or of its
// backward face (the forward face of the cell behind). The points are built from the integer
// index, so one face gives bit-identical velocities whichever cell asks (sec. 2.1, eq. 7); the
// cell's centre is built once and only the face's own axis changes from face to face. The model
// and the geometry are passed to each call, not held: on a GPU a reference held to a kernel's
// captured geometry made every thread copy the kernel's whole functor to local memory.
class CellFaces {
 public:
  KOKKOS_INLINE_FUNCTION CellFaces(const Geometry& g, std::uint64_t key) {
    for (int d = 0; d < g.n; ++d) {
      index_[d] = static_cast<double>(g.codec.index(key, d));
      point_[d] = g.mean[d] + g.h[d] * index_[d];
    }
  }
  template <class Model>
  KOKKOS_INLINE_FUNCTION double forward(const Model& model, const Geometry& g, int j) {
    return on_face(model, g, j, index_[j] + 0.5);
  }
  template <class Model>
  KOKKOS_INLINE_FUNCTION double backward(const Model& model, const Geometry& g, int j) {
    return on_face(model, g, j, (index_[j] - 1.0) + 0.5);
  }

 private:
  template <class Model>
  KOKKOS_INLINE_FUNCTION double on_face(const Model& model, const Geometry& g, int j, double face_index) {
    const double centre = point_[j];
    point_[j] = g.mean[j] + g.h[j] * face_index;
    const double v = model(j, point_);
    point_[j] = centre;
    return v;
  }

  double index_[max_dimension];
  double point_[max_dimension];
};

// Direction masks: bit j when f_j > 0 on the cell's forward face on axis j, bit 8 + j when
// f_j < 0, direction_above when the cell's probability is >= p* (only those grow or feed).
// Normalisation writes them; growth and pruning read them without evaluating the model.
inline constexpr int direction_above = 1 << 16;
KOKKOS_INLINE_FUNCTION bool flows(int mask, int j, int dir) { return (mask >> (dir > 0 ? j : 8 + j)) & 1; }
// The way f_j flows through the cell's faces on axis j: +1, -1, or 0 (no flow, or below p*).
KOKKOS_INLINE_FUNCTION int flow_direction(int mask, int j) {
  return flows(mask, j, 1) ? 1 : flows(mask, j, -1) ? -1 : 0;
}
template <class Model>
KOKKOS_INLINE_FUNCTION int direction_mask(const Model& model, const Geometry& g, std::uint64_t key, bool above) {
  if (!above) return 0;  // nothing reads the directions of cells below p*
  CellFaces faces(g, key);
  int mask = direction_above;
  for (int j = 0; j < g.n; ++j) {
    const double v = faces.forward(model, g, j);
    if (v > 0)
      mask |= 1 << j;
    else if (v < 0)
      mask |= 1 << (8 + j);
  }
  return mask;
}

}  // namespace pk::gbees::Details
