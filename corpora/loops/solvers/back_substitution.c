/* class: affine — back substitution by rows, from the last row up, each row's sum in a scalar.
 * t2c: description x[i] = (y[i] - sum over j > i of U[i][j] * x[j]) / U[i][i], for i from n-1 down to 0
 * t2c: size n MINI=40 SMALL=400 MEDIUM=2000 LARGE=8000 EXTRALARGE=14000
 * t2c: array U[n][n] in
 * t2c: array y[n] in
 * t2c: array x[n] out
 * t2c: domain U diagonally_dominant
 */
void back_substitution(int n, const double *U, const double *y, double *x)
{
  for (int i = n - 1; i >= 0; i--) {
    double s = y[i];
    for (int j = i + 1; j < n; j++)
      s -= U[i * n + j] * x[j];
    x[i] = s / U[i * n + i];
  }
}
