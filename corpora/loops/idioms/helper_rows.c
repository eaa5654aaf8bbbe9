/* class: affine — a matrix-vector product and a rank-1 update through helpers of the file that
 * take rows of the kernel's matrices (`dot(&A[i * n], x, n)`, `axpy(n, y[i], x, B + i * n)`), as
 * BLAS-like C is organized (frontend: each call written into the kernel, its pointers read as
 * the rows' elements).
 * t2c: size m MINI=9 SMALL=300 MEDIUM=1500 LARGE=5000 EXTRALARGE=10000
 * t2c: size n MINI=14 SMALL=250 MEDIUM=1400 LARGE=5000 EXTRALARGE=10000
 */
static double dot(const double *a, const double *b, int n)
{
  double s = 0.0;
  for (int k = 0; k < n; k++)
    s += a[k] * b[k];
  return s;
}

static void axpy(int n, double alpha, const double *x, double *y)
{
  for (int k = 0; k < n; k++)
    y[k] += alpha * x[k];
}

void helper_rows(int m, int n, const double *A, const double *x, double *y, double *B)
{
  for (int i = 0; i < m; i++) {
    y[i] = dot(&A[i * n], x, n);
    axpy(n, y[i], x, B + i * n);
  }
}
