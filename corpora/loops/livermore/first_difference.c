/* class: affine — Livermore loop 12, the first difference.
 * t2c: description x[k] = y[k+1] - y[k]
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=16000000 EXTRALARGE=64000000
 * t2c: array x[n] out
 * t2c: array y[n + 1] in
 */
void first_difference(int n, double *x, const double *y)
{
  for (int k = 0; k < n; k++)
    x[k] = y[k + 1] - y[k];
}
