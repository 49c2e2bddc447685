// The recursive Gaussian filter: coefficients, a plain serial Algorithm 1 written here,
// lines along every axis, the transpose, the chunked variant, bad input.
#include "spaces.hpp"

#include <pk/core/error.hpp>
#include <pk/rfilter/chunked_filter.hpp>
#include <pk/rfilter/coefficients.hpp>
#include <pk/rfilter/details/team_sweeps.hpp>
#include <pk/rfilter/filter.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

namespace rf = pk::rfilter;

// Algorithm 1 as printed: separate p and s arrays, end conditions, k = 1 primed with beta.
std::vector<double> reference_filter(const std::vector<double>& input, double sigma, int K) {
  const double e = K / (sigma * sigma);
  const double alpha = 1 + e - std::sqrt(e * (e + 2)), beta = 1 - alpha, M = 1 / (1 + alpha);
  const std::size_t n = input.size();
  std::vector<double> s = input, p(n);
  for (int k = 1; k <= K; ++k) {
    p[0] = (k == 1 ? beta : M) * s[0];
    for (std::size_t j = 1; j < n; ++j) p[j] = beta * s[j] + alpha * p[j - 1];
    s[n - 1] = M * p[n - 1];
    for (std::size_t j = n - 1; j-- > 0;) s[j] = beta * p[j] + alpha * s[j + 1];
  }
  return s;
}

// The filter as a matrix, (i, j) at [i * n + j]: reference_filter of the unit vectors.
std::vector<double> reference_matrix(int n, double sigma, int K) {
  std::vector<double> matrix(static_cast<std::size_t>(n) * n);
  for (int j = 0; j < n; ++j) {
    std::vector<double> unit(n, 0.0);
    unit[j] = 1;
    const auto column = reference_filter(unit, sigma, K);
    for (int i = 0; i < n; ++i) matrix[i * n + j] = column[i];
  }
  return matrix;
}

template <class Space>
class Rfilter : public ::testing::Test {};
TYPED_TEST_SUITE(Rfilter, pk::test::EnabledSpaceTypes, pk::test::SpaceNames);

TEST(RfilterCoefficients, MatchEquation8AndGiveVarianceSigmaSquared) {
  for (double sigma : {0.7, 2.0, 10.0})
    for (int K : {1, 4, 10, 100, 1000}) {
      const auto c = rf::make_coefficients(sigma, K);
      const double e = K / (sigma * sigma);
      EXPECT_NEAR(c.alpha, 1 + e - std::sqrt(e * (e + 2)), 1e-12 * (1 + e));
      EXPECT_NEAR(c.beta, std::sqrt(e * (e + 2)) - e, 1e-12 * (1 + e));
      EXPECT_DOUBLE_EQ(c.alpha + c.beta, 1.0);
      // Each of the 2K one-sided passes adds alpha / beta^2 to the variance: 2K alpha / beta^2 = sigma^2.
      EXPECT_NEAR(2 * K * c.alpha / (c.beta * c.beta), sigma * sigma, 1e-9 * sigma * sigma);
    }
  EXPECT_NEAR(rf::make_coefficients(2.0, 1).alpha, 1.25 - std::sqrt(0.25 * 2.25), 1e-15);
}

TEST(RfilterCoefficients, RejectBadSigmaAndK) {
  EXPECT_THROW(rf::make_coefficients(0.0, 4), pk::Error);
  EXPECT_THROW(rf::make_coefficients(-1.0, 4), pk::Error);
  EXPECT_THROW(rf::make_coefficients(std::nan(""), 4), pk::Error);
  EXPECT_THROW(rf::make_coefficients(2.0, 0), pk::Error);
}

template <class View>
std::vector<double> host_line_values(const View& host, std::size_t n) {
  return std::vector<double>(host.data(), host.data() + n);
}

TYPED_TEST(Rfilter, OneDimensionalMatchesSerialReference) {
  for (int n : {1, 2, 37, 5000, 100000}) {  // longer than a scratch tile, in place: 5000 on a GPU, 100000 on a CPU
    const auto input = pk::test::random_host_vector(n);
    auto field = pk::test::to_space(TypeParam{}, input);
    rf::apply_filter(TypeParam{}, field, 0, rf::make_coefficients(3.0, 6));
    const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, field);
    const auto expected = reference_filter(host_line_values(input, n), 3.0, 6);
    for (int j = 0; j < n; ++j) ASSERT_NEAR(got(j), expected[j], 1e-13) << "n " << n << " j " << j;
  }
}

// Every axis of 2-D and 3-D fields, both layouts: equal to the serial filter line by line.
template <class Space, class Layout>
void check_every_axis_against_reference(const int (&extent)[3]) {
  using Host = Kokkos::View<double***, Layout, Kokkos::HostSpace>;
  const auto values = pk::test::random_host_vector(static_cast<std::size_t>(extent[0]) * extent[1] * extent[2]);
  Host input("pk::test::rfilter::input", extent[0], extent[1], extent[2]);
  for (std::size_t i = 0; i < values.extent(0); ++i) input.data()[i] = values(i);
  const double sigma[3] = {1.5, 2.5, 4.0};
  const int K[3] = {3, 5, 2};
  for (int axis = 0; axis < 3; ++axis) {
    if (extent[axis] == 1) continue;
    auto field = pk::test::to_space(Space{}, input);
    rf::apply_filter(Space{}, field, axis, rf::make_coefficients(sigma[axis], K[axis]));
    const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, field);
    double worst = 0;
    for (int a = 0; a < extent[(axis + 1) % 3]; ++a)
      for (int b = 0; b < extent[(axis + 2) % 3]; ++b) {
        int i[3];
        i[(axis + 1) % 3] = a;
        i[(axis + 2) % 3] = b;
        std::vector<double> line(extent[axis]);
        for (int j = 0; j < extent[axis]; ++j) {
          i[axis] = j;
          line[j] = input(i[0], i[1], i[2]);
        }
        const auto expected = reference_filter(line, sigma[axis], K[axis]);
        for (int j = 0; j < extent[axis]; ++j) {
          i[axis] = j;
          worst = std::max(worst, std::abs(got(i[0], i[1], i[2]) - expected[j]));
        }
      }
    EXPECT_LT(worst, 1e-13) << "axis " << axis;
  }
}

TYPED_TEST(Rfilter, EveryAxisOf3dFieldMatchesLineByLine) {
  check_every_axis_against_reference<TypeParam, Kokkos::LayoutLeft>({13, 11, 9});
  check_every_axis_against_reference<TypeParam, Kokkos::LayoutRight>({13, 11, 9});
  // 1500: in place on a GPU; on a CPU, tiles of lines side by side in memory and straddling rows
  check_every_axis_against_reference<TypeParam, Kokkos::LayoutLeft>({40, 3, 1500});
  check_every_axis_against_reference<TypeParam, Kokkos::LayoutRight>({1500, 3, 40});
}

TYPED_TEST(Rfilter, TwoDimensionalViewAlongEachAxis) {
  const int n0 = 33, n1 = 21;
  const auto values = pk::test::random_host_vector(n0 * n1);
  Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> input("pk::test::rfilter::input2d", n0, n1);
  for (int i = 0; i < n0 * n1; ++i) input.data()[i] = values(i);
  const auto c = rf::make_coefficients(2.0, 4);
  auto field = pk::test::to_space(TypeParam{}, input);
  rf::apply_filter(TypeParam{}, field, 1, c);
  const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, field);
  for (int i = 0; i < n0; ++i) {
    std::vector<double> line(n1);
    for (int j = 0; j < n1; ++j) line[j] = input(i, j);
    const auto expected = reference_filter(line, 2.0, 4);
    for (int j = 0; j < n1; ++j) ASSERT_NEAR(got(i, j), expected[j], 1e-13);
  }
  EXPECT_THROW(rf::apply_filter(TypeParam{}, field, 2, c), pk::Error);  // no axis 2 in 2-D
}

TYPED_TEST(Rfilter, TransposeIsTheAdjoint) {
  const int nx = 24, ny = 7, nz = 900;  // scratch and in-place kernels
  using Field = Kokkos::View<double***, Kokkos::LayoutLeft, typename TypeParam::memory_space>;
  const auto xs = pk::test::random_host_vector(nx * ny * nz), ys = pk::test::random_host_vector(nx * ny * nz);
  Field x("pk::test::x", nx, ny, nz), y("pk::test::y", nx, ny, nz);
  Kokkos::deep_copy(x, Kokkos::View<const double***, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                           xs.data(), nx, ny, nz));
  Kokkos::deep_copy(y, Kokkos::View<const double***, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                           ys.data(), nx, ny, nz));
  auto dot = [](const Field& a, const Field& b) {
    const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, a);
    const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, b);
    double s = 0;
    for (std::size_t i = 0; i < ha.size(); ++i) s += ha.data()[i] * hb.data()[i];
    return s;
  };
  const rf::Coefficients c[3] = {rf::make_coefficients(2.0, 3), rf::make_coefficients(1.0, 2),
                                 rf::make_coefficients(5.0, 4)};
  Field fx("pk::test::fx", nx, ny, nz), fty("pk::test::fty", nx, ny, nz);
  Kokkos::deep_copy(fx, x);
  Kokkos::deep_copy(fty, y);
  rf::apply_filter_all_axes(TypeParam{}, fx, c);
  rf::apply_filter_all_axes(TypeParam{}, fty, c, rf::Transpose::yes);
  const double lhs = dot(fx, y), rhs = dot(x, fty);
  EXPECT_NEAR(lhs, rhs, 1e-11 * std::abs(lhs));
  // With the paper's end conditions the filter matrix is itself symmetric (V^T = V, as eq. 3
  // assumes): filtering y gives the same pairing.
  Kokkos::deep_copy(fty, y);
  rf::apply_filter_all_axes(TypeParam{}, fty, c);
  EXPECT_NEAR(dot(x, fty), lhs, 1e-11 * std::abs(lhs));
}

TYPED_TEST(Rfilter, ChunkedFilterDiffersLittleFromUnsplit) {
  // One long line (the paper's setting: sigma = 2, m = 2.5 sigma = 5), 50 chunks.
  const int n = 20000;
  const auto input = pk::test::random_host_vector(n);
  const auto c = rf::make_coefficients(2.0, 10);
  auto unsplit = pk::test::to_space(TypeParam{}, input);
  auto source = pk::test::to_space(TypeParam{}, input);
  rf::apply_filter(TypeParam{}, unsplit, 0, c);
  const auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, unsplit);
  double scale = 0;
  for (int j = 0; j < n; ++j) scale = std::max(scale, std::abs(u(j)));
  double previous = 1e300;
  for (int m : {5, 10, 20}) {
    auto chunked = pk::test::to_space(TypeParam{}, input);
    rf::apply_filter_chunked(TypeParam{}, source, chunked, 0, c, rf::Chunking{50, m});
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, chunked);
    double interior = 0, whole = 0;  // seams between chunks, away from the line's ends; all
    for (int j = 0; j < n; ++j) {
      whole = std::max(whole, std::abs(h(j) - u(j)));
      if (j >= 50 && j < n - 50) interior = std::max(interior, std::abs(h(j) - u(j)));
    }
    std::printf("chunked vs unsplit, sigma 2, K 10, 50 chunks, m %d: max seam difference %.3e of max |unsplit|\n", m,
                interior / scale);
    EXPECT_LT(interior, (m == 5 ? 0.1 : 0.01) * scale) << "m " << m;
    EXPECT_LT(interior, previous) << "more overlap must not be worse";
    // the first and last chunks end where the line does, with its end conditions: no worse there
    EXPECT_LE(whole, 1.5 * interior + 1e-15 * scale) << "m " << m;
    previous = interior;
  }
  // Overlap larger than a chunk, too many chunks, mismatched sizes: refused.
  auto out = pk::test::to_space(TypeParam{}, input);
  EXPECT_THROW(rf::apply_filter_chunked(TypeParam{}, source, out, 0, c, rf::Chunking{5000, 5}), pk::Error);
  EXPECT_THROW(rf::apply_filter_chunked(TypeParam{}, source, out, 0, c, rf::Chunking{n + 1, 0}), pk::Error);
  auto shorter = pk::test::to_space(TypeParam{}, pk::test::random_host_vector(n - 1));
  EXPECT_THROW(rf::apply_filter_chunked(TypeParam{}, source, shorter, 0, c, rf::Chunking{50, 5}), pk::Error);
}

TYPED_TEST(Rfilter, ChunkedWithOneChunkAndNoOverlapIsUnsplit) {
  const int n = 300;
  const auto input = pk::test::random_host_vector(n);
  const auto c = rf::make_coefficients(2.0, 5);
  auto unsplit = pk::test::to_space(TypeParam{}, input), source = pk::test::to_space(TypeParam{}, input);
  auto chunked = pk::test::to_space(TypeParam{}, input);
  rf::apply_filter(TypeParam{}, unsplit, 0, c);
  rf::apply_filter_chunked(TypeParam{}, source, chunked, 0, c, rf::Chunking{1, 0});
  const auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, unsplit);
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, chunked);
  for (int j = 0; j < n; ++j) ASSERT_NEAR(h(j), u(j), 1e-14);
}

// The GPU path (a thread per piece of a line, details/team_sweeps.hpp) on every space, with
// pieces of 4 entries so that short lines already need several threads (a short last piece
// included), one or two lines per team (a partial tile included), pieces staged in scratch
// or read straight from global memory, the filter and its adjoint (the transposed matrix).
template <class Space>
void check_team_sweeps() {
  using Policy = Kokkos::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<double*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using Sweeps = rf::Details::TeamSweeps<Member, 4>;
  const int most = Policy(Space{}, 1, 1).team_size_max(KOKKOS_LAMBDA(const Member&){}, Kokkos::ParallelForTag());
  int runs = 0;
  // sigma 20: beta^-7 exceeds 2^20, so the held pieces are rescaled between sweeps
  for (const double sigma : {2.5, 20.0})
    for (int n : {3, 5, 8, 21, 40}) {
      const auto c = rf::make_coefficients(sigma, 4);
      const auto weights = Sweeps::weights(c.alpha, c.beta);
      const auto matrix = reference_matrix(n, sigma, 4);
      for (int lines = 1; lines <= 2; ++lines)
        for (int count = 1; count <= lines; ++count)
          for (const bool staged : {true, false})
            for (const bool adjoint : {false, true}) {
              const int threads = lines * Sweeps::pieces(n);
              if (threads > most) continue;
              const auto input = pk::test::random_host_vector(n * lines);
              auto data = pk::test::to_space(Space{}, input);  // entry (j, l) at j * lines + l
              const int staged_size = staged ? n * lines : 0;
              const std::size_t bytes =
                  Scratch::shmem_size(staged_size) + Scratch::shmem_size(Sweeps::ends_size(n, lines));
              Kokkos::parallel_for(
                  "pk::test::rfilter::team_sweeps",
                  Policy(Space{}, 1, threads).set_scratch_size(0, Kokkos::PerTeam(bytes)),
                  KOKKOS_LAMBDA(const Member& team) {
                    Scratch tile(team.team_scratch(0), staged_size),
                        ends(team.team_scratch(0), Sweeps::ends_size(n, lines));
                    const Sweeps sweeps(team, ends.data(), n, count, lines, weights);
                    const int l = sweeps.line();
                    if (!staged) {
                      sweeps.filter([&](int j) -> double& { return data(j * lines + l); }, c.iterations, adjoint);
                      return;
                    }
                    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n * lines), [&](int i) { tile(i) = data(i); });
                    team.team_barrier();
                    sweeps.filter([&](int j) -> double& { return tile(j * lines + l); }, c.iterations, adjoint);
                    team.team_barrier();
                    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n * lines), [&](int i) { data(i) = tile(i); });
                  });
              const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, data);
              for (int l = 0; l < lines; ++l)
                for (int i = 0; i < n; ++i) {
                  double expected = input[i * lines + l];  // lines past count stay as they were
                  if (l < count) {
                    expected = 0;
                    for (int j = 0; j < n; ++j)
                      expected += (adjoint ? matrix[j * n + i] : matrix[i * n + j]) * input[j * lines + l];
                  }
                  ASSERT_NEAR(got(i * lines + l), expected, 1e-14)
                      << "sigma " << sigma << " n " << n << " lines " << lines << " count " << count << " staged "
                      << staged << " adjoint " << adjoint;
                }
              ++runs;
            }
    }
  EXPECT_GT(runs, 0) << "no team of 2 threads on this space";
}

TYPED_TEST(Rfilter, TeamSweepsMatchTheSerialFilter) { check_team_sweeps<TypeParam>(); }

// The GPU kernels (filter_lines_staged for lines along the contiguous axis,
// filter_lines_in_registers for the others) on every space, with tiles that a team of this
// space can hold: one piece or several, a short last piece, a partial last tile, the filter
// and its adjoint (the transposed matrix), line by line.
template <class Space>
void check_gpu_kernels() {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  using Field = Kokkos::View<double***, Kokkos::LayoutLeft, typename Space::memory_space>;
  const int most =
      Kokkos::TeamPolicy<Space>(Space{}, 1, 1).team_size_max(KOKKOS_LAMBDA(const Member&){}, Kokkos::ParallelForTag());
  const auto c = rf::make_coefficients(2.5, 3);
  const int lines = 7;  // a partial last tile for tiles of 2 and 4 lines
  int runs = 0;
  for (int n : {5, 16, 21, 40, 300}) {
    const auto matrix = reference_matrix(n, 2.5, 3);
    for (int tile : {1, 2, 4})
      for (int axis : {0, 1})  // LayoutLeft: axis 0 contiguous
        for (const bool adjoint : {false, true}) {
          if (tile * rf::Details::SpaceSweeps<Space>::pieces(n) > most) continue;
          const int e0 = axis == 0 ? n : lines, e1 = axis == 0 ? lines : n;
          const auto input = pk::test::random_host_vector(static_cast<std::size_t>(n) * lines);
          Kokkos::View<double***, Kokkos::LayoutLeft, Kokkos::HostSpace> host("pk::test::rfilter::kernels", e0, e1, 1);
          for (std::size_t i = 0; i < input.extent(0); ++i) host.data()[i] = input(i);
          Field field("pk::test::rfilter::kernels", e0, e1, 1);
          Kokkos::deep_copy(field, host);
          const auto g = rf::Details::line_geometry(field, axis);
          if (axis == 0)
            rf::Details::filter_lines_staged(Space{}, field, g, c, adjoint, tile);
          else
            rf::Details::filter_lines_in_registers(Space{}, field, g, c, adjoint, tile);
          const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, field);
          for (int l = 0; l < lines; ++l)
            for (int i = 0; i < n; ++i) {
              auto entry = [&](const auto& v, int j) { return axis == 0 ? v(j, l, 0) : v(l, j, 0); };
              double expected = 0;
              for (int j = 0; j < n; ++j)
                expected += (adjoint ? matrix[j * n + i] : matrix[i * n + j]) * entry(host, j);
              ASSERT_NEAR(entry(got, i), expected, 1e-14)
                  << "n " << n << " tile " << tile << " axis " << axis << " adjoint " << adjoint << " line " << l;
            }
          ++runs;
        }
  }
  EXPECT_GT(runs, 0) << "no team of 2 threads on this space";
}

TYPED_TEST(Rfilter, GpuKernelsMatchTheSerialFilter) { check_gpu_kernels<TypeParam>(); }

// Every tile that pk::autotune may choose for a GPU team gives the serial filter's result and
// the same bits as every other (a tile only changes which threads filter which lines), on
// every space, along the contiguous axis (staged) and another (in registers); the first
// candidate, which PK_AUTOTUNE=0 takes, is the largest tile that fits.
template <class Space>
void check_tile_candidates() {
  using Member = typename Kokkos::TeamPolicy<Space>::member_type;
  using Field = Kokkos::View<double***, Kokkos::LayoutLeft, typename Space::memory_space>;
  const Space space;
  const int most =
      Kokkos::TeamPolicy<Space>(space, 1, 1).team_size_max(KOKKOS_LAMBDA(const Member&){}, Kokkos::ParallelForTag());
  const auto c = rf::make_coefficients(2.5, 3);
  const int lines = 37;  // a partial last tile for every tile but 1
  int runs = 0;
  for (int n : {5, 16, 40, 256}) {
    const auto matrix = reference_matrix(n, 2.5, 3);
    for (int axis : {0, 1}) {  // LayoutLeft: axis 0 contiguous
      const std::vector<int> tiles = rf::Details::tile_candidates(space, n, axis == 0);
      ASSERT_FALSE(tiles.empty()) << "n " << n;
      EXPECT_EQ(tiles.front(), rf::Details::largest_tile_lines(space, n, axis == 0));
      EXPECT_EQ(tiles.back(), 1);
      for (std::size_t i = 1; i < tiles.size(); ++i) EXPECT_EQ(tiles[i], tiles[i - 1] / 2);
      const int e0 = axis == 0 ? n : lines, e1 = axis == 0 ? lines : n;
      const auto input = pk::test::random_host_vector(static_cast<std::size_t>(n) * lines);
      Kokkos::View<double***, Kokkos::LayoutLeft, Kokkos::HostSpace> host("pk::test::rfilter::tiles", e0, e1, 1);
      for (std::size_t i = 0; i < input.extent(0); ++i) host.data()[i] = input(i);
      std::vector<double> first;  // the result of the first tile that ran
      for (const int tile : tiles) {
        if (tile * rf::Details::SpaceSweeps<Space>::pieces(n) > most) continue;
        Field field("pk::test::rfilter::tiles", e0, e1, 1);
        Kokkos::deep_copy(field, host);
        rf::Details::filter_lines_in_teams(space, field, rf::Details::line_geometry(field, axis), c, false, tile);
        const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, field);
        const std::vector<double> result(got.data(), got.data() + got.size());
        if (first.empty()) first = result;
        EXPECT_EQ(result, first) << "n " << n << " axis " << axis << " tile " << tile;
        for (int l = 0; l < lines; ++l)
          for (int i = 0; i < n; ++i) {
            auto entry = [&](const auto& v, int j) { return axis == 0 ? v(j, l, 0) : v(l, j, 0); };
            double expected = 0;
            for (int j = 0; j < n; ++j) expected += matrix[i * n + j] * entry(host, j);
            ASSERT_NEAR(entry(got, i), expected, 1e-14) << "n " << n << " axis " << axis << " tile " << tile;
          }
        ++runs;
      }
    }
  }
  EXPECT_GT(runs, 0) << "no team of 2 threads on this space";
  // Lines of 256 along a strided axis: 16 pieces each, so 16 lines fill a team of 256 threads.
  EXPECT_EQ(rf::Details::tile_candidates(space, 256, false).front(), rf::Details::max_tile_lines);
}

TYPED_TEST(Rfilter, EveryTileCandidateGivesTheSameResult) { check_tile_candidates<TypeParam>(); }

// PK_AUTOTUNE=0 reproduces the tile chosen before tuning: the largest that fits.
TYPED_TEST(Rfilter, TileChoiceWithoutAutotuneIsTheLargestThatFits) {
  using Field = Kokkos::View<double***, Kokkos::LayoutLeft, typename TypeParam::memory_space>;
  const Field field("pk::test::rfilter::tile_choice", 24, 9, 1);
  const auto c = rf::make_coefficients(2.0, 4);
  ::setenv("PK_AUTOTUNE", "0", 1);
  const int tile = rf::Details::team_tile_lines(TypeParam{}, rf::Details::line_geometry(field, 1), c);
  ::unsetenv("PK_AUTOTUNE");
  EXPECT_EQ(tile, rf::Details::largest_tile_lines(TypeParam{}, 24, false));
  if constexpr (!pk::runs_on_host<TypeParam>) {  // timed: a host team may not run 256 threads
    const int tuned = rf::Details::team_tile_lines(TypeParam{}, rf::Details::line_geometry(field, 0), c);
    const auto tiles = rf::Details::tile_candidates(TypeParam{}, 24, true);
    EXPECT_NE(std::find(tiles.begin(), tiles.end(), tuned), tiles.end()) << "chose " << tuned;
    EXPECT_EQ(rf::tile_lines(TypeParam{}, field, 0, c), tuned);
  }
}

// Every space gives the host's answer.
TYPED_TEST(Rfilter, SpacesAgree) {
  if (pk::test::is_host_space<TypeParam>) GTEST_SKIP() << pk::test::host_against_itself;
  const int n0 = 64, n1 = 48, n2 = 40;
  const auto values = pk::test::random_host_vector(n0 * n1 * n2);
  using HostField = Kokkos::View<double***, Kokkos::LayoutLeft, Kokkos::HostSpace>;
  HostField host("pk::test::host", n0, n1, n2);
  for (int i = 0; i < n0 * n1 * n2; ++i) host.data()[i] = values(i);
  const rf::Coefficients c[3] = {rf::make_coefficients(3.0, 4), rf::make_coefficients(3.0, 4),
                                 rf::make_coefficients(3.0, 4)};
  auto on_space = pk::test::to_space(TypeParam{}, host);
  rf::apply_filter_all_axes(TypeParam{}, on_space, c);
  auto on_host = pk::test::to_space(Kokkos::DefaultHostExecutionSpace{}, host);
  rf::apply_filter_all_axes(Kokkos::DefaultHostExecutionSpace{}, on_host, c);
  const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, on_space);
  for (int i = 0; i < n0 * n1 * n2; ++i) ASSERT_NEAR(a.data()[i], on_host.data()[i], 1e-13);
}

}  // namespace
