#define CAT(x, y) x##y
void k(int n, double *a)
{
  for (int CAT(i, j) = 0; ij < n; ij++) a[ij] = 1.0;
}
