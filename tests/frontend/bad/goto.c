void jumpy(int n, double x[n])
{
  int i = 0;
again:
  x[i] = 0.0;
  i++;
  if (i < n)
    goto again;
}
