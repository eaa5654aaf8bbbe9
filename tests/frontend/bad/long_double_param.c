/* a long double scalar: no element type of t2c's */
void scale(int n, long double k, double *a)
{
    for (int i = 0; i < n; i++)
        a[i] *= k;
}
