/* class: data-dependent — a search per row with an early exit: the first column where a row
 * reaches a threshold, or -1.  A row's search stops after about 1 / (1 - t) columns (m at most),
 * so the work grows with the number of rows far more than with m: LARGE has many short rows.
 * t2c: description first[i] = the least j with a[i][j] >= t, or -1
 * t2c: size n MINI=8 SMALL=400 MEDIUM=4000 LARGE=1000000 EXTRALARGE=2000000
 * t2c: size m MINI=10 SMALL=500 MEDIUM=2000 LARGE=250 EXTRALARGE=500
 * t2c: domain a uniform(0, 1)
 * t2c: domain t uniform(0.9, 0.999)
 */
void row_search(int n, int m, double t, const double a[n][m], int first[n])
{
  for (int i = 0; i < n; i++) {
    int f = -1;
    for (int j = 0; j < m; j++)
      if (a[i][j] >= t) {
        f = j;
        break;
      }
    first[i] = f;
  }
}
