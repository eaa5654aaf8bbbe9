/* class: affine — a row softmax (max, exponentials, sum, division), with temporaries per row.
 * t2c: description y[i][j] = exp(x[i][j] - max_j x[i]) / sum_j exp(x[i][j] - max_j x[i])
 * t2c: size rows MINI=8 SMALL=200 MEDIUM=2000 LARGE=8000 EXTRALARGE=16000
 * t2c: size cols MINI=12 SMALL=300 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: domain x uniform(-4, 4)
 */
void softmax(int rows, int cols, const double x[rows][cols], double y[rows][cols])
{
  for (int i = 0; i < rows; i++) {
    double m = x[i][0];
    for (int j = 1; j < cols; j++)
      if (x[i][j] > m)
        m = x[i][j];
    double s = 0.0;
    for (int j = 0; j < cols; j++) {
      y[i][j] = exp(x[i][j] - m);
      s += y[i][j];
    }
    for (int j = 0; j < cols; j++)
      y[i][j] = y[i][j] / s;
  }
}
