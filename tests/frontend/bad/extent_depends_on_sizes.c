void two_ranges(int n, int m, const double *x, double y[n], double z[m])
{
  for (int i = 0; i < n; i++)
    y[i] = x[i];
  for (int j = 0; j < m; j++)
    z[j] = x[j];
}
