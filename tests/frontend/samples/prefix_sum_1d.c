/* Inclusive prefix sum over C99 1-D int arrays; the loop starts at 1. */
void prefix_sum(int n, int x[n], int y[n])
{
  y[0] = x[0];
  for (int i = 1; i < n; i++)
    y[i] = y[i - 1] + x[i];
}
