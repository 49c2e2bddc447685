// A stand-in for LAPACKE's header where no LAPACKE links (none installed, or a liblapacke newer
// than its liblapack): GBEES in C (bhanson10/gbees) calls LAPACKE_dsyev only to rotate its grid
// onto the covariance's eigenvectors, which its Lorenz examples leave off (Grid_create's ROTATE
// false). The stand-in stops the program if it is ever called. perf/peers/gbeesc/build.sh uses
// it only then.
#pragma once
#define LAPACK_COL_MAJOR 102
int LAPACKE_dsyev(int matrix_layout, char jobz, char uplo, int n, double* a, int lda, double* w);
