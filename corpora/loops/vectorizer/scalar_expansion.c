/* class: affine — a scalar temporary each iteration sets before it reads it (scalar expansion).
 * t2c: description c[i] = (a[i] + b[i])^2 + a[i] through a temporary
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=16000000 EXTRALARGE=64000000
 * t2c: array a[n] in
 * t2c: array b[n] in
 * t2c: array c[n] out
 */
void scalar_expansion(int n, const double *a, const double *b, double *c)
{
  double t;
  for (int i = 0; i < n; i++) {
    t = a[i] + b[i];
    c[i] = t * t + a[i];
  }
}
