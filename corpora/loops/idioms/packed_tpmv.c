/* class: affine — a lower-triangular matrix-vector product over packed row storage, as BLAS's
 * dtpmv keeps a triangle: row i's elements start at i*(i+1)/2 (frontend: the quotient of the loop
 * variables is bounded at the loops' ends, so ap's extent n*(n+1)/2 needs no annotation).
 * t2c: size n MINI=10 SMALL=200 MEDIUM=2000 LARGE=8000 EXTRALARGE=12000
 */
void packed_tpmv(int n, const double *ap, const double *x, double *y)
{
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int j = 0; j <= i; j++)
      s += ap[i * (i + 1) / 2 + j] * x[j];
    y[i] = s;
  }
}
