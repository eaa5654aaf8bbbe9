/* class: affine — an upper-triangular solve in place by columns, from the last one back: x[j]
 * is divided by the diagonal, then every row above it takes its share.
 * t2c: description for j from n-1 down to 0: x[j] /= U[j][j], then x[i] -= U[i][j] * x[j] for every row i < j
 * t2c: size n MINI=40 SMALL=400 MEDIUM=2000 LARGE=8000 EXTRALARGE=14000
 * t2c: array U[n][n] in
 * t2c: array x[n] inout
 * t2c: domain U diagonally_dominant
 */
void upper_solve_columns(int n, const double *U, double *x)
{
  for (int j = n - 1; j >= 0; j--) {
    x[j] = x[j] / U[j * n + j];
    for (int i = 0; i < j; i++)
      x[i] -= U[i * n + j] * x[j];
  }
}
