void k(int n, double *a)
{
  double s = 0;
  for (int i = 0; i < n; i++) s += a[i];
}
