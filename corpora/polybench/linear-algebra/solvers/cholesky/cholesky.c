/*
 * cholesky: in-place Cholesky factorisation A = L * L^T of a symmetric
 * positive definite N x N matrix; the lower triangle of A is overwritten by L
 * (row by row: L[i][j] = (A[i][j] - sum_{k<j} L[i][k]*L[j][k]) / L[j][j] for
 * j < i, L[i][i] = sqrt(A[i][i] - sum_{k<i} L[i][k]^2)).
 * Written for t2c from the mathematical definition; PolyBench/C 4.2.1 conventions.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <polybench.h>

#include "cholesky.h"

/* A := L * L^T with L unit lower triangular, L[i][j] = 1 - j/n below the
   diagonal: symmetric positive definite, and its Cholesky factor is L. */
static void init_array(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j, k;
  DATA_TYPE acc;
  POLYBENCH_2D_ARRAY_DECL(L, DATA_TYPE, N, N, n, n);

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      if (j < i)
        (POLYBENCH_ARRAY(L))[i][j] = (DATA_TYPE)(-j % n) / n + 1;
      else
        (POLYBENCH_ARRAY(L))[i][j] = (j == i) ? 1 : 0;
    }
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++) {
      acc = 0;
      for (k = 0; k <= j; k++)
        acc += (POLYBENCH_ARRAY(L))[i][k] * (POLYBENCH_ARRAY(L))[j][k];
      A[i][j] = acc;
      A[j][i] = acc;
    }
  POLYBENCH_FREE_ARRAY(L);
}

static void print_array(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("A");
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++) {
      if ((i * n + j) % 20 == 0)
        fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, A[i][j]);
    }
  POLYBENCH_DUMP_END("A");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_cholesky(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    /* below the diagonal: j < i */
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    /* the diagonal: j == i */
    for (k = 0; k < i; k++)
      A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = SQRT_FUN(A[i][i]);
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N;
  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(A));

  polybench_start_instruments;
  kernel_cholesky(n, POLYBENCH_ARRAY(A));
  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(A)));

  POLYBENCH_FREE_ARRAY(A);
  return 0;
}
