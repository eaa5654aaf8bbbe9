/* Integer square root of each element with a while loop. */
void isqrt_all(int n, int x[n], int r[n])
{
  for (int i = 0; i < n; i++) {
    int v = x[i];
    int s = 0;
    while ((s + 1) * (s + 1) <= v)
      s++;
    r[i] = s;
  }
}
