/* Three-point smoothing of the interior, 1 .. n-2, over pointers: the extent of x
   comes from x[i + 1] at i = n - 2. */
void smooth(int n, const double *x, double *y)
{
  for (int i = 1; i < n - 1; i++)
    y[i] = (x[i - 1] + x[i] + x[i + 1]) / 3.0;
}
