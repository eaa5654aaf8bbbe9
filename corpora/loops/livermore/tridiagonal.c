/* class: affine — Livermore loop 5, tridiagonal elimination below the diagonal (a recurrence).
 * t2c: description x[i] = z[i] * (y[i] - x[i-1]) for i >= 1
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=89000000 EXTRALARGE=356000000
 * t2c: constraint n >= 2
 * t2c: array x[n] inout
 * t2c: array y[n] in
 * t2c: array z[n] in
 * t2c: domain z uniform(-0.9, 0.9)
 */
void tridiagonal(int n, double *x, const double *y, const double *z)
{
  for (int i = 1; i < n; i++)
    x[i] = z[i] * (y[i] - x[i - 1]);
}
