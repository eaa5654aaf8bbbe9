/* class: affine — Livermore loop 24, the location of the first minimum.
 * t2c: description the first index m with x[m] minimal
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=140000000 EXTRALARGE=560000000
 * t2c: array x[n] in
 * t2c: array where[1] out
 */
void first_minimum(int n, const double *x, int *where)
{
  int m = 0;
  for (int k = 1; k < n; k++)
    if (x[k] < x[m])
      m = k;
  where[0] = m;
}
