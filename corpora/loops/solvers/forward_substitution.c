/* class: affine — forward substitution by rows, each row's sum in a scalar.
 * t2c: description x[i] = (b[i] - sum over j < i of L[i][j] * x[j]) / L[i][i], for i from 0 to n-1
 * t2c: size n MINI=40 SMALL=400 MEDIUM=2000 LARGE=8000 EXTRALARGE=14000
 * t2c: array L[n][n] in
 * t2c: array b[n] in
 * t2c: array x[n] out
 * t2c: domain L diagonally_dominant
 */
void forward_substitution(int n, const double *L, const double *b, double *x)
{
  for (int i = 0; i < n; i++) {
    double s = b[i];
    for (int j = 0; j < i; j++)
      s -= L[i * n + j] * x[j];
    x[i] = s / L[i * n + i];
  }
}
