/* class: affine — an in-place tree sum by halving strides: at stride s the first s values add the
 * s after them (a geometric counter, s >>= 1: poly runs it as a host loop, a launch per stride).
 * t2c: description x[0] = the sum of x's first 2^floor(log2 n) values, partial sums before it
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=250000000 EXTRALARGE=1000000000
 * t2c: array x[n] inout
 */
void tree_halving(int n, double *x)
{
  for (int s = n / 2; s > 0; s >>= 1)
    for (int i = 0; i < s; i++)
      x[i] += x[i + s];
}
