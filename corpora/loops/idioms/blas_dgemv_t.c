/* class: affine — y += alpha A^T x over a column-major matrix with a leading dimension and an
 * increment, as BLAS declares them (frontend: lda and incx are sizes with the rows they must
 * hold, lda >= m and incx >= 1; the verifier draws padded ones).
 * t2c: size m MINI=13 SMALL=300 MEDIUM=1500 LARGE=6000 EXTRALARGE=12000
 * t2c: size n MINI=11 SMALL=250 MEDIUM=1300 LARGE=5000 EXTRALARGE=10000
 */
void blas_dgemv_t(int m, int n, double alpha, const double *A, int lda, const double *x, int incx, double *y)
{
  for (int j = 0; j < n; j++) {
    double s = 0.0;
    for (int i = 0; i < m; i++)
      s += A[i + j * lda] * x[i * incx];
    y[j] += alpha * s;
  }
}
