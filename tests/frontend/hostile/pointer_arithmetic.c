void k(int n, double *a)
{
  double *p = a + 1;
  for (int i = 0; i < n - 1; i++) p[i] = 1.0;
}
