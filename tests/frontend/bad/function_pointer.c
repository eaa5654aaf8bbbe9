void map(int n, double (*f)(double), double x[n], double y[n])
{
  for (int i = 0; i < n; i++)
    y[i] = f(x[i]);
}
