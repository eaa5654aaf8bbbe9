void shrink(int n, double x[n])
{
  while (n > 0) {
    x[n - 1] = 0.0;
    n--;
  }
  for (int i = 0; i < n; i++)
    x[i] = 1.0;
}
