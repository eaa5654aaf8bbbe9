/* class: affine — a unit lower-triangular solve written by columns: once x[j] is final, every
 * row below it takes its share (the diagonal is taken as ones and never read).
 * t2c: description x = b, then for each column j in order, x[i] -= L[i][j] * x[j] for every row i > j
 * t2c: size n MINI=40 SMALL=400 MEDIUM=2000 LARGE=8000 EXTRALARGE=14000
 * t2c: array L[n][n] in
 * t2c: array b[n] in
 * t2c: array x[n] out
 * t2c: domain L diagonally_dominant
 */
void unit_lower_solve(int n, const double *L, const double *b, double *x)
{
  for (int i = 0; i < n; i++)
    x[i] = b[i];
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++)
      x[i] -= L[i * n + j] * x[j];
}
