/* class: affine — a triangular loop nest: row i sums columns 0..i.
 * t2c: description y[i] = sum over j <= i of L[i][j] * x[j]
 * t2c: size n MINI=40 SMALL=400 MEDIUM=2000 LARGE=16000 EXTRALARGE=32000
 * t2c: array L[n][n] in
 * t2c: array x[n] in
 * t2c: array y[n] out
 */
void triangular_sum(int n, const double *L, const double *x, double *y)
{
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j <= i; j++)
      s += L[i * n + j] * x[j];
    y[i] = s;
  }
}
