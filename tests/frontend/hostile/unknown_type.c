void k(int n, float128 *a)
{
  for (int i = 0; i < n; i++) a[i] = 1;
}
