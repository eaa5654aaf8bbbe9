/* class: affine — a reversed index (vectorizer loops: negative stride).
 * t2c: description a[n-1-i] = s * b[i]
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=16000000 EXTRALARGE=64000000
 * t2c: array a[n] out
 * t2c: array b[n] in
 */
void reversed(int n, double s, double *a, const double *b)
{
  for (int i = 0; i < n; i++)
    a[n - 1 - i] = s * b[i];
}
