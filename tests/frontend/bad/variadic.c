void var(int n, double x[n], ...)
{
  for (int i = 0; i < n; i++)
    x[i] = 0.0;
}
