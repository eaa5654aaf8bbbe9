/* t2c: size n MINI=40 SMALL=400 MEDIUM=4000 LARGE=40000 EXTRALARGE=400000
 * t2c: array x[n]
 * t2c: array y[n]
 */
static double around(const double *v, int i, int n)
{
  if (n == 1)
    return v[i];
  double s = v[i];
  if (i > 0) s += v[i - 1];
  if (i + 1 < n) s += v[i + 1];
  return s;
}
void smooth(int n, const double *x, double *y)
{
  for (int i = 0; i < n; i++)
    y[i] = around(x, i, n) / 3.0;
}
