/* y = alpha * x + y over flat pointers: extents come from the loop range. */
void axpy(int n, double alpha, const double *x, double *y)
{
  for (int i = 0; i < n; i++)
    y[i] = alpha * x[i] + y[i];
}
