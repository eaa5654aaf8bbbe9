/* class: affine — a maximum with its index (ties: the first index, as the loop finds it).
 * t2c: description the largest a[i] and the first i where it occurs
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=150000000 EXTRALARGE=600000000
 * t2c: array a[n] in
 * t2c: array best[1] out
 * t2c: array where[1] out
 */
void argmax(int n, const double *a, double *best, int *where)
{
  double m = a[0];
  int k = 0;
  for (int i = 1; i < n; i++) {
    if (a[i] > m) {
      m = a[i];
      k = i;
    }
  }
  best[0] = m;
  where[0] = k;
}
