/* class: affine — a banded lower-triangular solve (Livermore loop 4's kind): each x[i] needs the
 * w elements before it.
 * t2c: description x[i] = (y[i] - sum over 1 <= d <= w, d <= i of band[i][d-1] * x[i-d]) for i in order
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=100000 LARGE=14000000 EXTRALARGE=56000000
 * t2c: size w MINI=3 SMALL=5 MEDIUM=5 LARGE=5 EXTRALARGE=5
 * t2c: constraint w >= 1 && n > w
 * t2c: array band[n][w] in
 * t2c: array y[n] in
 * t2c: array x[n] out
 * t2c: domain band uniform(-0.2, 0.2)
 */
void banded_solve(int n, int w, const double *band, const double *y, double *x)
{
  for (int i = 0; i < n; i++) {
    double s = y[i];
    for (int d = 1; d <= w && d <= i; d++)
      s -= band[i * w + d - 1] * x[i - d];
    x[i] = s;
  }
}
