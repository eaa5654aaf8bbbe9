/* class: affine — an inclusive prefix sum along each row (torch.cumsum(x, dim=1)).
 * t2c: description y[i][j] = x[i][0] + ... + x[i][j]
 * t2c: size rows MINI=6 SMALL=200 MEDIUM=2000 LARGE=8000 EXTRALARGE=16000
 * t2c: size cols MINI=13 SMALL=300 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 */
void row_cumsum(int rows, int cols, const double x[rows][cols], double y[rows][cols])
{
  for (int i = 0; i < rows; i++) {
    y[i][0] = x[i][0];
    for (int j = 1; j < cols; j++)
      y[i][j] = y[i][j - 1] + x[i][j];
  }
}
