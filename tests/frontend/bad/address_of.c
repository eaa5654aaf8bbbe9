void addr(int n, double x[n], double y[n])
{
  for (int i = 0; i < n; i++) {
    double *p = &x[i];
    p++;
    y[i] = p[-1];
  }
}
