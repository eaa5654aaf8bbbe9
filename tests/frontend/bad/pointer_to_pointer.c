void rows(int n, int m, double ***a)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      a[i][j][0] = 0.0;
}
