void k(n, a)
  int n;
  double *a;
{
  int i;
  for (i = 0; i < n; i++) a[i] = 1.0;
}
