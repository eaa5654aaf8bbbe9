/* class: affine — an inclusive prefix sum by doubling strides (Hillis-Steele): at stride s each
 * value adds the one s before it, through a second buffer (a geometric counter, s *= 2: the model
 * reads it as a host loop around two launches per stride; the exchange networks, which take it
 * too, keep their candidate: the same launches).
 * t2c: description x[i] = x[0] + ... + x[i] (t is scratch)
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=200000 LARGE=2000000 EXTRALARGE=8000000
 * t2c: array x[n] inout
 * t2c: array t[n] inout
 */
void doubling_scan(int n, double *x, double *t)
{
  for (int s = 1; s < n; s *= 2) {
    for (int i = 0; i < n; i++)
      t[i] = i >= s ? x[i] + x[i - s] : x[i];
    for (int i = 0; i < n; i++)
      x[i] = t[i];
  }
}
