/* class: affine — layer normalization of each row, with a scale and shift per column.
 * t2c: description y = (x - mean) / sqrt(var + eps) * g + b, per row
 * t2c: size rows MINI=8 SMALL=200 MEDIUM=2000 LARGE=8000 EXTRALARGE=16000
 * t2c: size cols MINI=12 SMALL=300 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 */
void layernorm(int rows, int cols, double eps, const double x[rows][cols], const double g[cols],
               const double b[cols], double y[rows][cols])
{
  for (int i = 0; i < rows; i++) {
    double mean = 0.0, var = 0.0;
    for (int j = 0; j < cols; j++)
      mean += x[i][j];
    mean = mean / cols;
    for (int j = 0; j < cols; j++)
      var += (x[i][j] - mean) * (x[i][j] - mean);
    var = var / cols;
    for (int j = 0; j < cols; j++)
      y[i][j] = (x[i][j] - mean) / sqrt(var + eps) * g[j] + b[j];
  }
}
