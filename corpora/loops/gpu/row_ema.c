/* class: affine — an exponential moving average along each row, with a smoothing factor per
 * column (a first-order linear recurrence per row).
 * t2c: description y[i][j] = w[j] * y[i][j-1] + (1 - w[j]) * x[i][j], y[i][0] = x[i][0]
 * t2c: size rows MINI=5 SMALL=200 MEDIUM=2000 LARGE=8000 EXTRALARGE=16000
 * t2c: size cols MINI=17 SMALL=300 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: domain w uniform(0, 1)
 */
void row_ema(int rows, int cols, const double w[cols], const double x[rows][cols], double y[rows][cols])
{
  for (int i = 0; i < rows; i++) {
    y[i][0] = x[i][0];
    for (int j = 1; j < cols; j++)
      y[i][j] = w[j] * y[i][j - 1] + (1.0 - w[j]) * x[i][j];
  }
}
