double fact(int n, double x[n])
{
  if (n <= 1)
    return x[0];
  return x[n - 1] * fact(n - 1, x);
}
