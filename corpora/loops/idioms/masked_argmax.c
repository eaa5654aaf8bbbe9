/* class: affine — the largest of the selected readings and where it is: an arg-max whose `if`
 * also tests a mask, `if (mask[i] && a[i] > best) { best = a[i]; idx = i; }`, the first index on
 * ties, the initial -1 when no reading is selected (poly: one grid reduction whose threads take a
 * (value, index) pair only where the mask holds).
 * t2c: size n MINI=20 SMALL=2000 MEDIUM=400000 LARGE=20000000 EXTRALARGE=64000000
 * t2c: array a[n] in
 * t2c: array mask[n] in
 * t2c: array where[1] out
 * t2c: array top[1] out
 * t2c: domain mask integers(0, 1)
 */
void masked_argmax(int n, const float *a, const int *mask, int *where, float *top)
{
  float best = -3.0e38f;
  int idx = -1;
  for (int i = 0; i < n; i++)
    if (mask[i] && a[i] > best) {
      best = a[i];
      idx = i;
    }
  where[0] = idx;
  top[0] = best;
}
