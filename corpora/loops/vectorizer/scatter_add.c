/* class: data-dependent — a scatter-add: several iterations may add into one cell.
 * t2c: description acc[idx[i]] += w[i]
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=140000000 EXTRALARGE=280000000
 * t2c: size m MINI=10 SMALL=500 MEDIUM=10000 LARGE=100000 EXTRALARGE=1000000
 * t2c: array w[n] in
 * t2c: array idx[n] in
 * t2c: array acc[m] inout
 * t2c: domain idx integers(0, m - 1)
 */
void scatter_add(int n, int m, const double *w, const int *idx, double *acc)
{
  for (int i = 0; i < n; i++)
    acc[idx[i]] += w[i];
}
