void first(int n, double x[n])
{
  for (int i = 0; i < n; i++)
    x[i] = 1.0;
}

void second(int n, double x[n])
{
  for (int i = 0; i < n; i++)
    x[i] = 2.0;
}
