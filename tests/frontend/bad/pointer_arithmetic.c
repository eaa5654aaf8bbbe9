void twice(int n, double *a, double *b)
{
  for (int i = 0; i < n; i++)
    b[i] = 2.0 * *(a + i);
}
