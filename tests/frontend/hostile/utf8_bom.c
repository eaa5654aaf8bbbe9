void k(int n, double *a)
{
  for (int i = 0; i < n; i++) a[i] = 2.0 * a[i];
}
