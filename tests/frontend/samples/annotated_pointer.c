/* A pointer parameter whose shape and intent are declared by annotation.
 * t2c: array a[n][m] inout
 */
void scale_rows(int n, int m, double *a, const double *s)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      a[i * m + j] = a[i * m + j] * s[i];
}
