/* class: affine — a batch of tridiagonal systems, one per row, each solved in place by the
 * Thomas algorithm (forward elimination, then back substitution), as line solvers write it.
 * t2c: description for each row s: c[0] /= b[0], d[0] /= b[0]; for i = 1..n-1, w = b[i] - a[i] * c[i-1], c[i] /= w, d[i] = (d[i] - a[i] * d[i-1]) / w; then x[n-1] = d[n-1] and x[i] = d[i] - c[i] * x[i+1] for i from n-2 down to 0
 * t2c: size m MINI=6 SMALL=70 MEDIUM=600 LARGE=8000 EXTRALARGE=16000
 * t2c: size n MINI=10 SMALL=50 MEDIUM=400 LARGE=1000 EXTRALARGE=2000
 * t2c: array a[m][n] in
 * t2c: array b[m][n] in
 * t2c: array c[m][n] inout
 * t2c: array d[m][n] inout
 * t2c: array x[m][n] out
 * t2c: domain a uniform(-1, 1)
 * t2c: domain b uniform(4, 5)
 * t2c: domain c uniform(-1, 1)
 * t2c: domain d uniform(-1, 1)
 */
void batched_tridiagonal(int m, int n, const double *a, const double *b, double *c, double *d, double *x)
{
  for (int s = 0; s < m; s++) {
    c[s * n] = c[s * n] / b[s * n];
    d[s * n] = d[s * n] / b[s * n];
    for (int i = 1; i < n; i++) {
      double w = b[s * n + i] - a[s * n + i] * c[s * n + i - 1];
      c[s * n + i] = c[s * n + i] / w;
      d[s * n + i] = (d[s * n + i] - a[s * n + i] * d[s * n + i - 1]) / w;
    }
    x[s * n + n - 1] = d[s * n + n - 1];
    for (int i = n - 2; i >= 0; i--)
      x[s * n + i] = d[s * n + i] - c[s * n + i] * x[s * n + i + 1];
  }
}
