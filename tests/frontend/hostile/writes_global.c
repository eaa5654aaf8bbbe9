double g;
void k(int n, double *a)
{
  for (int i = 0; i < n; i++) g += a[i];
}
