/* class: affine — a store with stride 2 (vectorizer loops: non-unit stride).
 * t2c: description a[2i] = b[i] + c[i]; the odd elements of a keep their values
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=67000000 EXTRALARGE=268000000
 * t2c: array a[2*n] inout
 * t2c: array b[n] in
 * t2c: array c[n] in
 */
void strided_store(int n, double *a, const double *b, const double *c)
{
  for (int i = 0; i < n; i++)
    a[2 * i] = b[i] + c[i];
}
