void rows(int n, int m, double a[n][], double b[n])
{
  for (int i = 0; i < n; i++)
    b[i] = a[i][0];
}
