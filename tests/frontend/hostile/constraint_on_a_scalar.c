/* t2c: size n MINI=50 SMALL=500 MEDIUM=5000 LARGE=500000 EXTRALARGE=5000000 */
/* t2c: constraint stride >= 1 */
void strided_axpy(int n, int stride, double a, const double *x, double *y)
{
  for (int i = 0; i < n; i += stride)
    y[i] = a * x[i] + y[i];
}
