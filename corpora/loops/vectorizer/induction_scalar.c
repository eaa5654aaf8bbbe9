/* class: affine — an induction scalar beside the loop index (vectorizer loops: k += 2).
 * t2c: description a[2i+1] = b[i] + c[i], written through a scalar that steps by 2
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=67000000 EXTRALARGE=268000000
 * t2c: array a[2*n] inout
 * t2c: array b[n] in
 * t2c: array c[n] in
 */
void induction_scalar(int n, double *a, const double *b, const double *c)
{
  int k = -1;
  for (int i = 0; i < n; i++) {
    k += 2;
    a[k] = b[i] + c[i];
  }
}
