/* class: affine — the L2 norm and the largest magnitude of a 3-D grid's interior in one pass
 * over a flat pointer, as multigrid codes check their residual: a sum and a maximum written with
 * `if`, through a temporary, over the whole nest (poly: one grid reduction over the nest's
 * flat range), results through pointers.
 * t2c: size n1 MINI=6 SMALL=34 MEDIUM=66 LARGE=514 EXTRALARGE=770
 * t2c: size n2 MINI=7 SMALL=34 MEDIUM=66 LARGE=514 EXTRALARGE=770
 * t2c: size n3 MINI=5 SMALL=34 MEDIUM=66 LARGE=514 EXTRALARGE=770
 * t2c: constraint n1 >= 3
 * t2c: constraint n2 >= 3
 * t2c: constraint n3 >= 3
 * t2c: array u[n3][n2][n1] in
 */
#include <math.h>

void grid_norms(int n1, int n2, int n3, const double *u, double *l2, double *amax)
{
  double ss = 0.0, big = 0.0;
  for (int k = 1; k < n3 - 1; k++)
    for (int j = 1; j < n2 - 1; j++)
      for (int i = 1; i < n1 - 1; i++) {
        double x = u[(k * n2 + j) * n1 + i];
        ss += x * x;
        if (fabs(x) > big)
          big = fabs(x);
      }
  *l2 = sqrt(ss / ((double)(n1 - 2) * (n2 - 2) * (n3 - 2)));
  *amax = big;
}
