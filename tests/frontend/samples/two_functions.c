/* Two kernels in one file: read needs --function. */
void scale(int n, double a, double x[n], double y[n])
{
  for (int i = 0; i < n; i++)
    y[i] = a * x[i];
}

void shift(int n, double a, double x[n], double y[n])
{
  for (int i = 0; i < n; i++)
    y[i] = x[i] + a;
}
