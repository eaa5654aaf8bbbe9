void reads_only(int n, double x[n])
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i];
}
