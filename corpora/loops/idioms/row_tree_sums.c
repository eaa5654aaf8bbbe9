/* class: affine — a tree sum along each row of a matrix, in place: at width w each row's first w
 * values add the w after them (a geometric counter, w = w / 2: poly runs it as a host loop, a 2-d
 * launch per width).
 * t2c: description a[i][0] = the sum of row i's first 2^floor(log2 m) values
 * t2c: size n MINI=8 SMALL=100 MEDIUM=1000 LARGE=20000 EXTRALARGE=40000
 * t2c: size m MINI=20 SMALL=200 MEDIUM=1000 LARGE=10000 EXTRALARGE=20000
 * t2c: array a[n][m] inout
 */
void row_tree_sums(int n, int m, double *a)
{
  for (int w = m / 2; w > 0; w = w / 2)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < w; j++)
        a[i * m + j] += a[i * m + j + w];
}
