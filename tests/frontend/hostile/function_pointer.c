void k(int n, double *a, double (*f)(double))
{
  for (int i = 0; i < n; i++) a[i] = f(a[i]);
}
