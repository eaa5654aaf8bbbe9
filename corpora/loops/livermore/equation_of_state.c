/* class: affine — Livermore loop 7, the equation of state fragment.
 * t2c: description a polynomial in r and t over seven neighbouring elements of u
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=8000000 EXTRALARGE=32000000
 * t2c: array x[n] out
 * t2c: array y[n] in
 * t2c: array z[n] in
 * t2c: array u[n + 6] in
 */
void equation_of_state(int n, double q, double r, double t, double *x, const double *y, const double *z,
                       const double *u)
{
  for (int k = 0; k < n; k++)
    x[k] = u[k] + r * (z[k] + r * y[k])
         + t * (u[k + 3] + r * (u[k + 2] + r * u[k + 1])
                + t * (u[k + 6] + q * (u[k + 5] + q * u[k + 4])));
}
