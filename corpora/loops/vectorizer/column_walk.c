/* class: affine — a nest that walks a row-major array by columns (loop interchange pays).
 * t2c: description a[i][j] = a[i][j] * s + b[i][j], the loops in (j, i) order
 * t2c: size n MINI=24 SMALL=300 MEDIUM=1500 LARGE=6000 EXTRALARGE=12000
 * t2c: size m MINI=20 SMALL=280 MEDIUM=1400 LARGE=5600 EXTRALARGE=11000
 */
void column_walk(int n, int m, double s, double a[n][m], const double b[n][m])
{
  for (int j = 0; j < m; j++)
    for (int i = 0; i < n; i++)
      a[i][j] = a[i][j] * s + b[i][j];
}
