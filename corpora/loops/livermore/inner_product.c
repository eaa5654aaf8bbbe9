/* class: affine — Livermore loop 3, the inner product, returned.
 * t2c: description the sum of z[k] * x[k]
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=130000000 EXTRALARGE=520000000
 * t2c: array x[n] in
 * t2c: array z[n] in
 */
double inner_product(int n, const double *x, const double *z)
{
  double q = 0.0;
  for (int k = 0; k < n; k++)
    q += z[k] * x[k];
  return q;
}
