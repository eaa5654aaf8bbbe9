/*
 * floyd-warshall: all-pairs shortest paths on a dense N x N weight matrix.
 *   for k: path[i][j] := min(path[i][j], path[i][k] + path[k][j])
 * Written for t2c from the Floyd-Warshall recurrence; PolyBench/C 4.2.1 conventions.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <polybench.h>

#include "floyd-warshall.h"

static void init_array(int n, DATA_TYPE POLYBENCH_2D(path, N, N, n, n))
{
  int i, j;

  /* small edge weights 1..7, with some pairs made "far apart" (999) */
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      path[i][j] = i * j % 7 + 1;
      if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0)
        path[i][j] = 999;
    }
}

static void print_array(int n, DATA_TYPE POLYBENCH_2D(path, N, N, n, n))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("path");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      if ((i * n + j) % 20 == 0)
        fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, path[i][j]);
    }
  POLYBENCH_DUMP_END("path");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_floyd_warshall(int n, DATA_TYPE POLYBENCH_2D(path, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (k = 0; k < _PB_N; k++)
    for (i = 0; i < _PB_N; i++)
      for (j = 0; j < _PB_N; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N;
  POLYBENCH_2D_ARRAY_DECL(path, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(path));

  polybench_start_instruments;
  kernel_floyd_warshall(n, POLYBENCH_ARRAY(path));
  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(path)));

  POLYBENCH_FREE_ARRAY(path);
  return 0;
}
