/* class: data-dependent — packing: the write index moves only when the condition holds.
 * t2c: description the positive elements of a, in order, at the front of b; their count
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=16000000 EXTRALARGE=32000000
 * t2c: array a[n] in
 * t2c: array b[n] inout
 * t2c: array count[1] out
 * t2c: domain a uniform(-1, 1)
 */
void pack_positive(int n, const double *a, double *b, int *count)
{
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (a[i] > 0.0) {
      b[k] = a[i];
      k++;
    }
  }
  count[0] = k;
}
