/* class: affine — a 3-point smoothing with its end points copied, behind the early return on
 * empty input library code writes, over restrict pointers and long counters (model: a guard no
 * valid size takes is dropped).
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=58000000 EXTRALARGE=232000000
 * t2c: constraint n >= 2
 */
void guarded_smooth(long n, const double *restrict x, double *restrict y)
{
  if (n < 2)
    return;
  y[0] = x[0];
  for (long i = 1; i < n - 1; i++)
    y[i] = 0.25 * x[i - 1] + 0.5 * x[i] + 0.25 * x[i + 1];
  y[n - 1] = x[n - 1];
}
