/* class: affine — Gauss-Seidel sweeps for a tridiagonal system (a 1-d diffusion operator), in
 * place: each unknown takes its left neighbour from this sweep and its right one from the last.
 * t2c: description sweeps sweeps; each sets x[i] = (r[i] - lo[i] * x[i-1] - up[i] * x[i+1]) / d[i] for i = 1..n-2 in order
 * t2c: size sweeps MINI=3 SMALL=20 MEDIUM=200 LARGE=1000 EXTRALARGE=2000
 * t2c: size n MINI=16 SMALL=200 MEDIUM=5000 LARGE=50000 EXTRALARGE=200000
 * t2c: domain d uniform(2, 2.5)
 * t2c: domain lo uniform(-1, 1)
 * t2c: domain up uniform(-1, 1)
 */
void gauss_seidel_1d(int sweeps, int n, const double *lo, const double *d, const double *up, const double *r,
                     double *x)
{
  for (int s = 0; s < sweeps; s++)
    for (int i = 1; i < n - 1; i++)
      x[i] = (r[i] - lo[i] * x[i - 1] - up[i] * x[i + 1]) / d[i];
}
