/* class: affine — the mean negative log-likelihood of integer labels: each row's
 * log-probability is picked by a comparison loop over the classes (a one-hot mask) rather than
 * by a subscript, as code written for hardware without gathers does.
 * t2c: description loss = -(1/n) * sum over i of logp[i][label[i]]
 * t2c: size n MINI=8 SMALL=512 MEDIUM=4096 LARGE=262144 EXTRALARGE=1048576
 * t2c: size c MINI=10 SMALL=100 MEDIUM=1000 LARGE=1000 EXTRALARGE=1000
 * t2c: array label[n] in
 * t2c: array loss[1] out
 * t2c: domain label integers(0, c - 1)
 * t2c: domain logp uniform(-8, 0)
 */
void nll_loss(int n, int c, const float logp[n][c], const int *label, float *loss)
{
  double total = 0.0;
  for (int i = 0; i < n; i++) {
    double picked = 0.0;
    for (int j = 0; j < c; j++)
      if (j == label[i])
        picked += logp[i][j];
    total -= picked;
  }
  loss[0] = total / n;
}
