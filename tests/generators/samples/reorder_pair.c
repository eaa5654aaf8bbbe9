/* Two statements where the second feeds the first's next iteration (b[i - 1]): a loop that
   needs statement reordering to lose its carried dependence.  Class: affine, loop-carried. */
// t2c: array a[n] inout
// t2c: array b[n] inout
// t2c: array c[n] in
// t2c: array d[n] in
// t2c: size n MINI=40 SMALL=400 MEDIUM=4000 LARGE=400000 EXTRALARGE=4000000
void reorder_pair(int n, double *a, double *b, const double *c, const double *d)
{
    for (int i = 1; i < n; i++) {
        a[i] = b[i - 1] + c[i] * d[i];
        b[i] = c[i] + a[i] * d[i];
    }
}
