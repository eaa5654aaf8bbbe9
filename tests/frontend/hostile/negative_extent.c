void k(int n, double a[-5])
{
  for (int i = 0; i < n; i++) a[i] = 1.0;
}
