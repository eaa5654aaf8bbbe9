/* class: affine — a first-order linear recurrence (a backward, loop-carried dependence).
 * t2c: description a[i] = a[i-1] * b[i] + c[i]
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=89000000 EXTRALARGE=356000000
 * t2c: constraint n >= 2
 * t2c: array a[n] inout
 * t2c: array b[n] in
 * t2c: array c[n] in
 * t2c: domain b uniform(-1, 1)
 */
void linear_recurrence(int n, double *a, const double *b, const double *c)
{
  for (int i = 1; i < n; i++)
    a[i] = a[i - 1] * b[i] + c[i];
}
