void k(int n, double *a)
{
  int i = 0;
  do { a[i] = 1.0; i++; } while (i < n);
}
