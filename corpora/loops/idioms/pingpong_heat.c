/* class: affine — a 2-D heat equation whose time loop exchanges its two grids by a pointer swap
 * each step, as C stencil codes write it (frontend: the steps two at a time over the named grids,
 * the last of an odd count alone; both grids read and written).
 * t2c: size n MINI=10 SMALL=100 MEDIUM=500 LARGE=2000 EXTRALARGE=4000
 * t2c: size steps MINI=3 SMALL=20 MEDIUM=50 LARGE=101 EXTRALARGE=201
 * t2c: array u[n][n]
 * t2c: array v[n][n]
 */
void pingpong_heat(int n, int steps, double *u, double *v)
{
  for (int t = 0; t < steps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        v[i * n + j] = u[i * n + j] + 0.2 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
                                             u[i * n + j - 1] + u[i * n + j + 1] - 4.0 * u[i * n + j]);
    double *tmp = u;
    u = v;
    v = tmp;
  }
}
