/* class: affine — a transpose strip-mined by hand for a CPU cache: tile loops stepping by 32 and
 * point loops `for (i = ii; i < MIN(ii + 32, n); i++)` (model: the untiled nest over i and j,
 * legal since no two iterations touch one element).
 * t2c: size n MINI=40 SMALL=300 MEDIUM=2000 LARGE=4000 EXTRALARGE=8000
 * t2c: size m MINI=37 SMALL=270 MEDIUM=1800 LARGE=3600 EXTRALARGE=7200
 * t2c: array a[n][m] in
 * t2c: array b[m][n] out
 */
#define MIN(x, y) ((x) < (y) ? (x) : (y))

void tiled_transpose(int n, int m, const double a[n][m], double b[m][n])
{
  for (int ii = 0; ii < n; ii += 32)
    for (int jj = 0; jj < m; jj += 32)
      for (int i = ii; i < MIN(ii + 32, n); i++)
        for (int j = jj; j < MIN(jj + 32, m); j++)
          b[j][i] = a[i][j];
}
