/* class: affine — an inclusive prefix sum written as a triangular sum: each total adds the
 * inputs up to its index again (poly: the same terms in the same order carried from the
 * previous total, then a parallel scan).
 * t2c: size n MINI=40 SMALL=1000 MEDIUM=8000 LARGE=30000 EXTRALARGE=60000
 * t2c: array x[n] in
 * t2c: array y[n] out
 */
void running_total(int n, const double *x, double *y)
{
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int k = 0; k <= i; k++)
      s += x[k];
    y[i] = s;
  }
}
