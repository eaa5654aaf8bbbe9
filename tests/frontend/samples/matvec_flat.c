/* y = A x with A stored row-major in a flat float pointer (a[i*m + j]). */
void matvec(int n, int m, const float *a, const float *x, float *y)
{
  int i, j;
  for (i = 0; i < n; i++) {
    float acc = 0.0f;
    for (j = 0; j < m; j++)
      acc += a[i * m + j] * x[j];
    y[i] = acc;
  }
}
