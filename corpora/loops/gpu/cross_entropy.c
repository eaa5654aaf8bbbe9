/* class: gather — the cross-entropy loss of each row: a log-sum-exp over the row, minus the
 * logit its label picks (a read through data).
 * t2c: description loss[i] = log(sum over j of exp(x[i][j] - max_j x[i][j])) + max_j x[i][j] - x[i][label[i]]
 * t2c: size n MINI=8 SMALL=512 MEDIUM=4096 LARGE=16384 EXTRALARGE=65536
 * t2c: size c MINI=10 SMALL=100 MEDIUM=1000 LARGE=1000 EXTRALARGE=1000
 * t2c: array label[n] in
 * t2c: domain label integers(0, c - 1)
 * t2c: domain x uniform(-4, 4)
 */
void cross_entropy(int n, int c, const double x[n][c], const int *label, double loss[n])
{
  for (int i = 0; i < n; i++) {
    double m = x[i][0];
    for (int j = 1; j < c; j++)
      m = fmax(m, x[i][j]);
    double s = 0.0;
    for (int j = 0; j < c; j++)
      s += exp(x[i][j] - m);
    loss[i] = log(s) + m - x[i][label[i]];
  }
}
