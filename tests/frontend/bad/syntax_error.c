/* A missing semicolon after the assignment. */
void broken(int n, double *x)
{
  for (int i = 0; i < n; i++)
    x[i] = 2.0 * x[i]
}
