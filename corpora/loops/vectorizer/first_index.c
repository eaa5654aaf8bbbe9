/* class: data-dependent — a search with an early exit: the first index where a[i] > t.
 * Each element passes with a chance below 2 / n, so the first match lies late in the array or
 * there is none: the whole search, not its first few elements, at every size.
 * t2c: description the first i with a[i] > t, or -1
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=230000000 EXTRALARGE=920000000
 * t2c: array a[n] in
 * t2c: array found[1] out
 * t2c: domain a uniform(0, n)
 * t2c: domain t uniform(n - 2, n)
 */
void first_index(int n, double t, const double *a, int *found)
{
  int r = -1;
  for (int i = 0; i < n; i++) {
    if (a[i] > t) {
      r = i;
      break;
    }
  }
  found[0] = r;
}
