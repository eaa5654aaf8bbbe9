/* Tridiagonal forward elimination, written as a first-order linear recurrence
   (Livermore loop 5): each x[i] needs x[i - 1].  Class: affine, loop-carried. */
// t2c: array x[n] inout
// t2c: array y[n] in
// t2c: array z[n] in
// t2c: size n MINI=40 SMALL=400 MEDIUM=4000 LARGE=400000 EXTRALARGE=4000000
void tridiag_elimination(int n, double *x, const double *y, const double *z)
{
    for (int i = 1; i < n; i++)
        x[i] = z[i] * (y[i] - x[i - 1]);
}
