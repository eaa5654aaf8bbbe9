/*
 * ludcmp: solves A * x = b for an N x N matrix: in-place LU factorisation
 * A = L * U without pivoting (L unit lower triangular), then forward
 * substitution L * y = b and back substitution U * x = y.
 * Written for t2c from the mathematical definition; PolyBench/C 4.2.1 conventions.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <polybench.h>

#include "ludcmp.h"

/* A := L * L^T with L unit lower triangular, L[i][j] = 1 - j/n below the
   diagonal (symmetric positive definite, so no pivoting is needed);
   b[i] = 4 + (i+1)/(2n); x and y start at zero. */
static void init_array(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n), DATA_TYPE POLYBENCH_1D(b, N, n),
                       DATA_TYPE POLYBENCH_1D(x, N, n), DATA_TYPE POLYBENCH_1D(y, N, n))
{
  int i, j, k;
  DATA_TYPE fn, acc;
  POLYBENCH_2D_ARRAY_DECL(L, DATA_TYPE, N, N, n, n);

  fn = (DATA_TYPE)n;
  for (i = 0; i < n; i++) {
    x[i] = 0;
    y[i] = 0;
    b[i] = (i + 1) / fn / 2.0 + 4;
  }
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

static void print_array(int n, DATA_TYPE POLYBENCH_1D(x, N, n))
{
  int i;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("x");
  for (i = 0; i < n; i++) {
    if (i % 20 == 0)
      fprintf(POLYBENCH_DUMP_TARGET, "\n");
    fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, x[i]);
  }
  POLYBENCH_DUMP_END("x");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_ludcmp(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n), DATA_TYPE POLYBENCH_1D(b, N, n),
                          DATA_TYPE POLYBENCH_1D(x, N, n), DATA_TYPE POLYBENCH_1D(y, N, n))
{
  int i, j, k;
  DATA_TYPE w;

#pragma scop
  /* A = L * U */
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < _PB_N; j++) {
      w = A[i][j];
      for (k = 0; k < i; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }
  /* L * y = b */
  for (i = 0; i < _PB_N; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  /* U * x = y */
  for (i = _PB_N - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < _PB_N; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N;
  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);
  POLYBENCH_1D_ARRAY_DECL(b, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(x, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(y, DATA_TYPE, N, n);

  init_array(n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(b), POLYBENCH_ARRAY(x), POLYBENCH_ARRAY(y));

  polybench_start_instruments;
  kernel_ludcmp(n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(b), POLYBENCH_ARRAY(x), POLYBENCH_ARRAY(y));
  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(x)));

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(b);
  POLYBENCH_FREE_ARRAY(x);
  POLYBENCH_FREE_ARRAY(y);
  return 0;
}
