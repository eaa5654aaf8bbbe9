/* class: gather — reads through an index array the loop never writes.
 * t2c: description a[i] = b[idx[i]] * s
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=16000000 EXTRALARGE=32000000
 * t2c: array a[n] out
 * t2c: array b[n] in
 * t2c: array idx[n] in
 * t2c: domain idx integers(0, n - 1)
 */
void gather(int n, double s, double *a, const double *b, const int *idx)
{
  for (int i = 0; i < n; i++)
    a[i] = b[idx[i]] * s;
}
