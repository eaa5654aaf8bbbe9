void k(int n, double *a)
{
  double café = 1.0;
  for (int i = 0; i < n; i++) a[i] = café;
}
