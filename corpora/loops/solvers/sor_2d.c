/* class: affine — successive over-relaxation (SOR) for the 2-d Poisson equation, in place in
 * lexicographic order, as smoothers and Gauss-Seidel solvers are written: each point takes its
 * north and west neighbours from this sweep and its south and east ones from the last.
 * t2c: description iters sweeps; each sets u[i][j] += omega * ((u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1] - h2 * f[i][j]) / 4 - u[i][j]) for i, j = 1..n-2 in order
 * t2c: size iters MINI=3 SMALL=12 MEDIUM=60 LARGE=200 EXTRALARGE=400
 * t2c: size n MINI=12 SMALL=80 MEDIUM=500 LARGE=2000 EXTRALARGE=4000
 * t2c: domain omega uniform(1, 1.9)
 * t2c: domain h2 uniform(0, 0.01)
 */
void sor_2d(int iters, int n, double omega, double h2, const double f[n][n], double u[n][n])
{
  for (int it = 0; it < iters; it++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        u[i][j] += omega * ((u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - h2 * f[i][j]) / 4.0 - u[i][j]);
}
