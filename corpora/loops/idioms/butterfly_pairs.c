/* class: affine — a loop stepping by 2 over pairs (sum and difference of neighbours, one level
 * of a Haar transform), written as users write it: i += 2 (model: counted as a unit step).
 * t2c: description y[i], y[i+1] = a[i] + a[i+1], a[i] - a[i+1] for even i
 * t2c: size n MINI=20 SMALL=2000 MEDIUM=200000 LARGE=30000000 EXTRALARGE=120000000
 * t2c: array a[2*n] in
 * t2c: array y[2*n] out
 */
void butterfly_pairs(int n, const double *a, double *y)
{
  for (int i = 0; i < 2 * n; i += 2) {
    y[i] = a[i] + a[i + 1];
    y[i + 1] = a[i] - a[i + 1];
  }
}
