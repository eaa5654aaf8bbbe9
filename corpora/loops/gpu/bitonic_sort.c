/* class: affine — a bitonic sorting network over 2^p elements (sort ascending): the compare-and-
 * swap pattern of each stage depends only on indices.
 * t2c: description a sorted ascending
 * t2c: size p MINI=5 SMALL=10 MEDIUM=16 LARGE=22 EXTRALARGE=24
 * t2c: constraint p >= 1 && p <= 26
 * t2c: array a[1 << p] inout
 */
void bitonic_sort(int p, double *a)
{
  int n = 1 << p;
  for (int size = 2; size <= n; size *= 2)
    for (int stride = size / 2; stride > 0; stride /= 2)
      for (int i = 0; i < n; i++) {
        int j = i ^ stride;
        if (j > i) {
          int up = (i & size) == 0;
          if ((a[i] > a[j]) == up) {
            double t = a[i];
            a[i] = a[j];
            a[j] = t;
          }
        }
      }
}
