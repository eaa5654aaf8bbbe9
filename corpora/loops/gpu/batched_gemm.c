/* class: affine — many small matrix products (batched GEMM).
 * t2c: description c[b] = a[b] x bm[b] for each of nb products of m x k by k x n
 * t2c: size nb MINI=4 SMALL=64 MEDIUM=1024 LARGE=8192 EXTRALARGE=32768
 * t2c: size m MINI=8 SMALL=16 MEDIUM=16 LARGE=32 EXTRALARGE=32
 * t2c: size n MINI=8 SMALL=16 MEDIUM=16 LARGE=32 EXTRALARGE=32
 * t2c: size k MINI=8 SMALL=16 MEDIUM=16 LARGE=32 EXTRALARGE=32
 */
void batched_gemm(int nb, int m, int n, int k, const double a[nb][m][k], const double bm[nb][k][n],
                  double c[nb][m][n])
{
  for (int b = 0; b < nb; b++)
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++) {
        double s = 0.0;
        for (int l = 0; l < k; l++)
          s += a[b][i][l] * bm[b][l][j];
        c[b][i][j] = s;
      }
}
