/* class: affine — a matrix transpose.
 * t2c: description b[j][i] = a[i][j]
 * t2c: size n MINI=24 SMALL=300 MEDIUM=1500 LARGE=6000 EXTRALARGE=12000
 * t2c: size m MINI=20 SMALL=280 MEDIUM=1400 LARGE=5600 EXTRALARGE=11000
 */
void transpose(int n, int m, const double a[n][m], double b[m][n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      b[j][i] = a[i][j];
}
