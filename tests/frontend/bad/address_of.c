void addr(int n, double x[n], double y[n])
{
  for (int i = 0; i < n; i++) {
    double *p = &x[i];
    y[i] = p[0];
  }
}
