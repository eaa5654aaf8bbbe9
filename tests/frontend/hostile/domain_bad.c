/* t2c: domain a uniform(1, */
void k(int n, double *a)
{
  for (int i = 0; i < n; i++) a[i] = 1.0;
}
