/* Prefix sum over int pointers: x[0] and y[0] are touched outside the loop,
   x[i] and y[i] inside it; the extent is the largest of those, n. */
void prefix_sum_ptr(int n, const int *x, int *y)
{
  y[0] = x[0];
  for (int i = 1; i < n; i++)
    y[i] = y[i - 1] + x[i];
}
