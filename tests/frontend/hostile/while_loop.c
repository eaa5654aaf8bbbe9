void k(int n, double *a)
{
  int i = 0;
  while (i < n) { a[i] = 1.0; i++; }
}
