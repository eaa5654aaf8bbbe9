void k(int n, double *a)
{
  a[0] = 1.0; /* never closed
}
