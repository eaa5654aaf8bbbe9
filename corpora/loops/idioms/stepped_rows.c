/* class: affine — a matrix-vector product whose row pointer steps by a leading dimension
 * after each row, as C for a CPU walks a padded matrix (frontend: `A += lda` read as the
 * subscript it reaches, A[lda * i + j], so lda is a size with lda >= m).
 * t2c: size n MINI=11 SMALL=300 MEDIUM=2000 LARGE=10000 EXTRALARGE=20000
 * t2c: size m MINI=13 SMALL=250 MEDIUM=1800 LARGE=9000 EXTRALARGE=18000
 */
void stepped_rows(int n, int m, const double *A, int lda, const double *x, double *y)
{
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j < m; j++)
      s += A[j] * x[j];
    *y++ = s;
    A += lda;
  }
}
