/* class: affine — where a 3-D field is smallest: its minimum and the (k, j, i) cell holding it,
 * the first in the loops' order on ties, written as the plain `if` that keeps the value and all
 * three coordinates (poly: one grid reduction over the nest's flat range whose threads keep a
 * value and a flat rank; the coordinates are decoded from the winning rank).
 * t2c: size nz MINI=5 SMALL=40 MEDIUM=128 LARGE=590 EXTRALARGE=1180
 * t2c: size ny MINI=6 SMALL=30 MEDIUM=128 LARGE=590 EXTRALARGE=1180
 * t2c: size nx MINI=7 SMALL=50 MEDIUM=128 LARGE=590 EXTRALARGE=1180
 * t2c: array f[nz][ny][nx] in
 * t2c: array cell[3] out
 * t2c: array low[1] out
 */
void grid_argmin(int nz, int ny, int nx, const float f[nz][ny][nx], int cell[3], float low[1])
{
  float best = 3.0e38f;
  int bk = -1, bj = -1, bi = -1;
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++)
        if (f[k][j][i] < best) {
          best = f[k][j][i];
          bk = k;
          bj = j;
          bi = i;
        }
  cell[0] = bk;
  cell[1] = bj;
  cell[2] = bi;
  low[0] = best;
}
