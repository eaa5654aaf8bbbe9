void gather_even(int n, const double *x, double *y)
{
  for (int i = 0; i < n; i++) {
    int k = 2 * i + (i % 2);
    y[i] = x[k];
  }
}
