/* class: affine — a wrap-around variable: im1 is i - 1, except n - 1 in the first iteration.
 * t2c: description a[i] = (b[i] + b[i-1]) / 2, the first element pairing with the last
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=16000000 EXTRALARGE=64000000
 * t2c: array a[n] out
 * t2c: array b[n] in
 */
void wrap_around(int n, double *a, const double *b)
{
  int im1 = n - 1;
  for (int i = 0; i < n; i++) {
    a[i] = (b[i] + b[im1]) * 0.5;
    im1 = i;
  }
}
