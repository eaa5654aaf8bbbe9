/* class: affine — Livermore loop 22, the Planckian distribution (an exponential per element).
 * t2c: description y[k] = u[k] / v[k]; w[k] = x[k] / (exp(y[k]) - 1)
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=8000000 EXTRALARGE=32000000
 * t2c: array u[n] in
 * t2c: array v[n] in
 * t2c: array x[n] in
 * t2c: array y[n] out
 * t2c: array w[n] out
 * t2c: domain u uniform(0.5, 2)
 * t2c: domain v uniform(0.5, 2)
 */
void planckian(int n, const double *u, const double *v, const double *x, double *y, double *w)
{
  for (int k = 0; k < n; k++) {
    y[k] = u[k] / v[k];
    w[k] = x[k] / (exp(y[k]) - 1.0);
  }
}
