/* class: affine — the fast Walsh-Hadamard transform over 2^p values, in place: at each level h the
 * values i and i ^ h become their sum and difference (a butterfly network; partners depend only on
 * indices).
 * t2c: description x = H x, H the 2^p x 2^p Sylvester-Hadamard matrix (no normalization)
 * t2c: size p MINI=4 SMALL=10 MEDIUM=16 LARGE=24 EXTRALARGE=26
 * t2c: constraint p >= 1 && p <= 26
 * t2c: array x[1 << p] inout
 */
void walsh_hadamard(int p, double *x)
{
  int n = 1 << p;
  for (int h = 1; h < n; h *= 2)
    for (int i = 0; i < n; i++) {
      int j = i ^ h;
      if (j > i) {
        double u = x[i];
        double v = x[j];
        x[i] = u + v;
        x[j] = u - v;
      }
    }
}
