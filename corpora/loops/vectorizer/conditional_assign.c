/* class: affine — a conditional assignment in the loop body (vectorizer loops: if-conversion).
 * t2c: description a[i] = b[i] * c[i] where b[i] > 0, else -b[i]
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=16000000 EXTRALARGE=64000000
 * t2c: array a[n] out
 * t2c: array b[n] in
 * t2c: array c[n] in
 * t2c: domain b uniform(-1, 1)
 */
void conditional_assign(int n, double *a, const double *b, const double *c)
{
  for (int i = 0; i < n; i++) {
    if (b[i] > 0.0)
      a[i] = b[i] * c[i];
    else
      a[i] = -b[i];
  }
}
