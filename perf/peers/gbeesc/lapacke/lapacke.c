// The stand-in's one function (lapacke.h says why): it stops the program.
#include <stdio.h>
#include <stdlib.h>

#include "lapacke.h"

int LAPACKE_dsyev(int matrix_layout, char jobz, char uplo, int n, double* a, int lda, double* w) {
  (void)matrix_layout, (void)jobz, (void)uplo, (void)n, (void)a, (void)lda, (void)w;
  fprintf(stderr, "LAPACKE stand-in (perf/peers/gbeesc/lapacke): a rotated grid needs LAPACK\n");
  abort();
}
