void k(int n, double *a)
{
  if (n > 0) { a[n - 1] = 1.0; k(n - 1, a); }
}
