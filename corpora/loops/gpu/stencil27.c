/* class: affine — a 27-point stencil over the interior of a 3-D grid.
 * t2c: description b = the weighted sum of a's 3x3x3 neighbourhood (centre, faces, edges, corners)
 * t2c: size n MINI=10 SMALL=40 MEDIUM=120 LARGE=320 EXTRALARGE=512
 * t2c: constraint n >= 3
 */
void stencil27(int n, double c0, double c1, double c2, double c3, const double a[n][n][n], double b[n][n][n])
{
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      for (int k = 1; k < n - 1; k++) {
        double faces = a[i - 1][j][k] + a[i + 1][j][k] + a[i][j - 1][k] + a[i][j + 1][k]
                     + a[i][j][k - 1] + a[i][j][k + 1];
        double edges = a[i - 1][j - 1][k] + a[i - 1][j + 1][k] + a[i + 1][j - 1][k] + a[i + 1][j + 1][k]
                     + a[i - 1][j][k - 1] + a[i - 1][j][k + 1] + a[i + 1][j][k - 1] + a[i + 1][j][k + 1]
                     + a[i][j - 1][k - 1] + a[i][j - 1][k + 1] + a[i][j + 1][k - 1] + a[i][j + 1][k + 1];
        double corners = a[i - 1][j - 1][k - 1] + a[i - 1][j - 1][k + 1] + a[i - 1][j + 1][k - 1]
                       + a[i - 1][j + 1][k + 1] + a[i + 1][j - 1][k - 1] + a[i + 1][j - 1][k + 1]
                       + a[i + 1][j + 1][k - 1] + a[i + 1][j + 1][k + 1];
        b[i][j][k] = c0 * a[i][j][k] + c1 * faces + c2 * edges + c3 * corners;
      }
}
