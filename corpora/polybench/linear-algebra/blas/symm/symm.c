/*
 * symm: C := alpha*A*B + beta*C, with A M x M symmetric (only its lower
 * triangle, diagonal included, is read), B and C M x N.
 * Written for t2c from the BLAS definition (SIDE = 'L', UPLO = 'L');
 * PolyBench/C 4.2.1 conventions.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <polybench.h>

#include "symm.h"

static void init_array(int m, int n, DATA_TYPE *alpha, DATA_TYPE *beta,
                       DATA_TYPE POLYBENCH_2D(C, M, N, m, n),
                       DATA_TYPE POLYBENCH_2D(A, M, M, m, m),
                       DATA_TYPE POLYBENCH_2D(B, M, N, m, n))
{
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      C[i][j] = (DATA_TYPE)((i + j) % 100) / m;
      B[i][j] = (DATA_TYPE)((n + i - j) % 100) / m;
    }
  for (i = 0; i < m; i++) {
    for (j = 0; j <= i; j++)
      A[i][j] = (DATA_TYPE)((i + j) % 100) / m;
    /* The strict upper triangle is never read: a marker value makes any
       use of it show in the results. */
    for (j = i + 1; j < m; j++)
      A[i][j] = -999;
  }
}

static void print_array(int m, int n, DATA_TYPE POLYBENCH_2D(C, M, N, m, n))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("C");
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      if ((i * m + j) % 20 == 0)
        fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, C[i][j]);
    }
  POLYBENCH_DUMP_END("C");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_symm(int m, int n, DATA_TYPE alpha, DATA_TYPE beta,
                        DATA_TYPE POLYBENCH_2D(C, M, N, m, n),
                        DATA_TYPE POLYBENCH_2D(A, M, M, m, m),
                        DATA_TYPE POLYBENCH_2D(B, M, N, m, n))
{
  int i, j, k;
  DATA_TYPE temp2;

  /* Row i of C gets beta*C + alpha*(lower part of row i of A)*B in one step,
     and row i of B is scattered into the rows k < i through A[i][k] = A[k][i]. */
#pragma scop
  for (i = 0; i < _PB_M; i++)
    for (j = 0; j < _PB_N; j++) {
      temp2 = SCALAR_VAL(0.0);
      for (k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
#pragma endscop
}

int main(int argc, char **argv)
{
  int m = M;
  int n = N;
  DATA_TYPE alpha;
  DATA_TYPE beta;
  POLYBENCH_2D_ARRAY_DECL(C, DATA_TYPE, M, N, m, n);
  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, M, M, m, m);
  POLYBENCH_2D_ARRAY_DECL(B, DATA_TYPE, M, N, m, n);

  init_array(m, n, &alpha, &beta, POLYBENCH_ARRAY(C), POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));

  polybench_start_instruments;
  kernel_symm(m, n, alpha, beta, POLYBENCH_ARRAY(C), POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));
  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(m, n, POLYBENCH_ARRAY(C)));

  POLYBENCH_FREE_ARRAY(C);
  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(B);
  return 0;
}
