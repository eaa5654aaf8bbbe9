double scale_factor = 2.0;

void scale(int n, double x[n], double y[n])
{
  for (int i = 0; i < n; i++)
    y[i] = scale_factor * x[i];
}
