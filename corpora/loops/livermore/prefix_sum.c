/* class: affine — Livermore loop 11, the first sum (an inclusive prefix sum).
 * t2c: description x[k] = x[k-1] + y[k], x[0] = y[0]
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=16000000 EXTRALARGE=64000000
 * t2c: array x[n] out
 * t2c: array y[n] in
 */
void prefix_sum(int n, double *x, const double *y)
{
  x[0] = y[0];
  for (int k = 1; k < n; k++)
    x[k] = x[k - 1] + y[k];
}
