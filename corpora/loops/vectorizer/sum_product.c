/* class: affine — several statistics in one pass: a sum, a sum of squares and a count.
 * t2c: description the sum, the sum of squares and the number of positive elements of a
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=150000000 EXTRALARGE=600000000
 * t2c: array a[n] in
 * t2c: array stats[2] out
 * t2c: array positive[1] out
 * t2c: domain a uniform(-1, 1)
 */
void sum_product(int n, const double *a, double *stats, int *positive)
{
  double s = 0.0, q = 0.0;
  int c = 0;
  for (int i = 0; i < n; i++) {
    s += a[i];
    q += a[i] * a[i];
    if (a[i] > 0.0)
      c++;
  }
  stats[0] = s;
  stats[1] = q;
  positive[0] = c;
}
