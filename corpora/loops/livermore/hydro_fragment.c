/* class: affine — Livermore loop 1, the hydro fragment.
 * t2c: description x[k] = q + y[k] * (r * z[k+10] + t * z[k+11])
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=16000000 EXTRALARGE=64000000
 * t2c: array x[n] out
 * t2c: array y[n] in
 * t2c: array z[n + 11] in
 */
void hydro_fragment(int n, double q, double r, double t, double *x, const double *y, const double *z)
{
  for (int k = 0; k < n; k++)
    x[k] = q + y[k] * (r * z[k + 10] + t * z[k + 11]);
}
