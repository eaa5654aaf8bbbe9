void histogram(int n, int x[n], int h[16])
{
  for (int i = 0; i < n; i++)
    h[x[i]] += 1;
}
