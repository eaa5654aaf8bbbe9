/*
 * adi: alternating-direction implicit solver for 2-D heat diffusion on an
 * N x N grid.  Each of TSTEPS time steps does a column sweep (a tridiagonal
 * system per column, solved by forward elimination into p, q and back
 * substitution into v) and then a row sweep (the same per row, from v into u).
 * Boundary values are fixed at 1.
 * Written for t2c from the Peaceman-Rachford ADI scheme; PolyBench/C 4.2.1 conventions.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <polybench.h>

#include "adi.h"

static void init_array(int n, DATA_TYPE POLYBENCH_2D(u, N, N, n, n))
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      u[i][j] = (DATA_TYPE)(i + n - j) / n;
}

static void print_array(int n, DATA_TYPE POLYBENCH_2D(u, N, N, n, n))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("u");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      if ((i * n + j) % 20 == 0)
        fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, u[i][j]);
    }
  POLYBENCH_DUMP_END("u");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_adi(int tsteps, int n,
                       DATA_TYPE POLYBENCH_2D(u, N, N, n, n),
                       DATA_TYPE POLYBENCH_2D(v, N, N, n, n),
                       DATA_TYPE POLYBENCH_2D(p, N, N, n, n),
                       DATA_TYPE POLYBENCH_2D(q, N, N, n, n))
{
  int t, i, j;
  DATA_TYPE DX, DY, DT;
  DATA_TYPE B1, B2;
  DATA_TYPE mul1, mul2;
  DATA_TYPE a, b, c, d, e, f;

#pragma scop
  DX = SCALAR_VAL(1.0) / (DATA_TYPE)_PB_N;
  DY = SCALAR_VAL(1.0) / (DATA_TYPE)_PB_N;
  DT = SCALAR_VAL(1.0) / (DATA_TYPE)_PB_TSTEPS;
  B1 = SCALAR_VAL(2.0);
  B2 = SCALAR_VAL(1.0);
  mul1 = B1 * DT / (DX * DX);
  mul2 = B2 * DT / (DY * DY);

  a = -mul1 / SCALAR_VAL(2.0);
  b = SCALAR_VAL(1.0) + mul1;
  c = a;
  d = -mul2 / SCALAR_VAL(2.0);
  e = SCALAR_VAL(1.0) + mul2;
  f = d;

  for (t = 1; t <= _PB_TSTEPS; t++) {
    /* column sweep: u -> v */
    for (i = 1; i < _PB_N - 1; i++) {
      v[0][i] = SCALAR_VAL(1.0);
      p[i][0] = SCALAR_VAL(0.0);
      q[i][0] = v[0][i];
      for (j = 1; j < _PB_N - 1; j++) {
        p[i][j] = -c / (a * p[i][j - 1] + b);
        q[i][j] = (-d * u[j][i - 1] + (SCALAR_VAL(1.0) + SCALAR_VAL(2.0) * d) * u[j][i]
                   - f * u[j][i + 1] - a * q[i][j - 1])
                  / (a * p[i][j - 1] + b);
      }
      v[_PB_N - 1][i] = SCALAR_VAL(1.0);
      for (j = _PB_N - 2; j >= 1; j--)
        v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
    }
    /* row sweep: v -> u */
    for (i = 1; i < _PB_N - 1; i++) {
      u[i][0] = SCALAR_VAL(1.0);
      p[i][0] = SCALAR_VAL(0.0);
      q[i][0] = u[i][0];
      for (j = 1; j < _PB_N - 1; j++) {
        p[i][j] = -f / (d * p[i][j - 1] + e);
        q[i][j] = (-a * v[i - 1][j] + (SCALAR_VAL(1.0) + SCALAR_VAL(2.0) * a) * v[i][j]
                   - c * v[i + 1][j] - d * q[i][j - 1])
                  / (d * p[i][j - 1] + e);
      }
      u[i][_PB_N - 1] = SCALAR_VAL(1.0);
      for (j = _PB_N - 2; j >= 1; j--)
        u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
    }
  }
#pragma endscop
}

int main(int argc, char **argv)
{
  int n = N;
  int tsteps = TSTEPS;
  POLYBENCH_2D_ARRAY_DECL(u, DATA_TYPE, N, N, n, n);
  POLYBENCH_2D_ARRAY_DECL(v, DATA_TYPE, N, N, n, n);
  POLYBENCH_2D_ARRAY_DECL(p, DATA_TYPE, N, N, n, n);
  POLYBENCH_2D_ARRAY_DECL(q, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(u));

  polybench_start_instruments;
  kernel_adi(tsteps, n, POLYBENCH_ARRAY(u), POLYBENCH_ARRAY(v), POLYBENCH_ARRAY(p), POLYBENCH_ARRAY(q));
  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(u)));

  POLYBENCH_FREE_ARRAY(u);
  POLYBENCH_FREE_ARRAY(v);
  POLYBENCH_FREE_ARRAY(p);
  POLYBENCH_FREE_ARRAY(q);
  return 0;
}
