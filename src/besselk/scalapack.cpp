#include <pk/besselk/distributed.hpp>
#include <pk/core/error.hpp>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

// BLACS' C interface and the ScaLAPACK and PBLAS routines used (Fortran calling convention:
// everything by pointer; pdpotrf is Fortran and takes its character argument's length last,
// the PBLAS routines are C).
extern "C" {
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);
void Cblacs_gridinit(int* context, const char* order, int rows, int cols);
void Cblacs_gridinfo(int context, int* rows, int* cols, int* row, int* col);
void Cblacs_gridexit(int context);
int numroc_(const int* n, const int* block, const int* process, const int* first, const int* processes);
void descinit_(int* descriptor, const int* m, const int* n, const int* mb, const int* nb, const int* first_row,
               const int* first_col, const int* context, const int* leading, int* info);
void pdpotrf_(const char* uplo, const int* n, double* a, const int* ia, const int* ja, const int* desca, int* info,
              std::size_t uplo_length);
void pdtrsv_(const char* uplo, const char* trans, const char* diag, const int* n, const double* a, const int* ia,
             const int* ja, const int* desca, double* x, const int* ix, const int* jx, const int* descx,
             const int* incx);
void pdtrmv_(const char* uplo, const char* trans, const char* diag, const int* n, const double* a, const int* ia,
             const int* ja, const int* desca, double* x, const int* ix, const int* jx, const int* descx,
             const int* incx);
}

namespace pk::besselk {

namespace {
// The most rows a process grid of `ranks` processes can have with rows <= columns.
int grid_rows_for(int ranks) {
  int rows = static_cast<int>(std::sqrt(static_cast<double>(ranks)));
  while (ranks % rows != 0) --rows;
  return rows;
}
}  // namespace

BlockCyclic::BlockCyclic(const mpi::Communicator& comm, long n, int block) : comm_(comm), n_(n) {
  require(n >= 2 && n <= std::numeric_limits<int>::max(),
          "block-cyclic layout: n = " + std::to_string(n) + " must be in [2, 2^31)");
  require(block >= 1, "block-cyclic layout: the block size must be >= 1");
  const int rows = grid_rows_for(comm.size()), cols = comm.size() / rows;
  system_context_ = Csys2blacs_handle(comm.get());
  context_ = system_context_;
  Cblacs_gridinit(&context_, "Row", rows, cols);
  int grid_rows = 0, grid_cols = 0, row = 0, col = 0;
  Cblacs_gridinfo(context_, &grid_rows, &grid_cols, &row, &col);
  require(grid_rows == rows && grid_cols == cols,
          "BLACS did not make a " + std::to_string(rows) + " x " + std::to_string(cols) + " process grid");
  const int size = static_cast<int>(n), first = 0;
  rows_ = {block, rows, row, numroc_(&size, &block, &row, &first, &grid_rows)};
  cols_ = {block, cols, col, numroc_(&size, &block, &col, &first, &grid_cols)};
  const int leading = std::max<int>(1, static_cast<int>(rows_.size)), one = 1;
  int info = 0;
  descinit_(descriptor_, &size, &size, &block, &block, &first, &first, &context_, &leading, &info);
  require(info == 0, "ScaLAPACK descinit of the matrix failed: " + std::to_string(info));
  descinit_(vector_descriptor_, &size, &one, &block, &one, &first, &first, &context_, &leading, &info);
  require(info == 0, "ScaLAPACK descinit of the vector failed: " + std::to_string(info));
}

BlockCyclic::~BlockCyclic() {
  Cblacs_gridexit(context_);
  Cfree_blacs_system_handle(system_context_);
}

bool BlockCyclic::factor(double* tiles) const {
  const int size = static_cast<int>(n_), one = 1;
  int info = 0;
  pdpotrf_("L", &size, tiles, &one, &one, descriptor_, &info, 1);
  require(info >= 0, "ScaLAPACK pdpotrf: argument " + std::to_string(-info) + " is wrong");
  return info == 0;  // info > 0 (the same on every rank): a leading minor is not positive definite
}

void BlockCyclic::gather_column(const std::vector<double>& local, std::vector<double>& x) const {
  // Each entry comes from exactly one rank and is 0 elsewhere: the sum is exact, and the
  // same bits on every rank.
  std::fill(x.begin(), x.end(), 0.0);
  if (cols_.mine == 0)
    for (long l = 0; l < rows_.size; ++l) x[rows_.global(l)] = local[l];
  MPI_Allreduce(MPI_IN_PLACE, x.data(), static_cast<int>(x.size()), MPI_DOUBLE, MPI_SUM, comm_.get());
}

void BlockCyclic::apply_lower(const double* factor, std::vector<double>& x, bool solve) const {
  require(static_cast<long>(x.size()) == n_, "block-cyclic layout: the vector must have n entries");
  // The vector as an n x 1 matrix in process column 0, in the matrix's row blocks.
  std::vector<double> local(static_cast<std::size_t>(std::max<long>(1, rows_.size)), 0.0);
  if (cols_.mine == 0)
    for (long l = 0; l < rows_.size; ++l) local[l] = x[rows_.global(l)];
  const int size = static_cast<int>(n_), one = 1;
  (solve ? pdtrsv_ : pdtrmv_)("L", "N", "N", &size, factor, &one, &one, descriptor_, local.data(), &one, &one,
                              vector_descriptor_, &one);
  gather_column(local, x);
}

void BlockCyclic::solve_lower(const double* factor, std::vector<double>& x) const { apply_lower(factor, x, true); }

void BlockCyclic::multiply_lower(const double* factor, std::vector<double>& x) const { apply_lower(factor, x, false); }

double BlockCyclic::log_determinant(const double* factor) const {
  // The diagonal gathered, then summed in one order on every rank: the same bits everywhere.
  std::vector<double> diagonal(static_cast<std::size_t>(n_), 0.0);
  for (long l = 0; l < rows_.size; ++l) {
    const long i = rows_.global(l);
    if (cols_.holds(i)) diagonal[i] = factor[l + rows_.size * cols_.local(i)];
  }
  MPI_Allreduce(MPI_IN_PLACE, diagonal.data(), static_cast<int>(n_), MPI_DOUBLE, MPI_SUM, comm_.get());
  double sum = 0;
  for (const double d : diagonal) sum += 2 * std::log(d);
  return sum;
}

}  // namespace pk::besselk
