/* In-place inclusive prefix sum (Livermore loop 11).  Class: affine, loop-carried. */
// t2c: array x[n] inout
// t2c: size n MINI=40 SMALL=400 MEDIUM=4000 LARGE=400000 EXTRALARGE=4000000
void prefix_sum(int n, double *x)
{
    for (int i = 1; i < n; i++)
        x[i] = x[i - 1] + x[i];
}
