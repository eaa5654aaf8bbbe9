/* class: affine — two statements whose order inside the loop carries a dependence that swapping
 * them removes: S2 reads the a[i+1] that S1 writes one iteration later.
 * t2c: description d[i] = a[i+1] * 2 (the old a), then a[i] = b[i] + c[i]
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=16000000 EXTRALARGE=64000000
 * t2c: array a[n + 1] inout
 * t2c: array b[n] in
 * t2c: array c[n] in
 * t2c: array d[n] out
 */
void statement_reorder(int n, double *a, const double *b, const double *c, double *d)
{
  for (int i = 0; i < n; i++) {
    a[i] = b[i] + c[i];
    d[i] = a[i + 1] * 2.0;
  }
}
