/* class: affine — LU factorization in place without pivoting over a flat row-major pointer.
 * t2c: description a = L U (L unit lower, U upper), both in a
 * t2c: size n MINI=20 SMALL=120 MEDIUM=400 LARGE=1500 EXTRALARGE=3000
 * t2c: array a[n][n] inout
 * t2c: domain a diagonally_dominant
 */
void lu_inplace(int n, double *a)
{
  for (int k = 0; k < n; k++)
    for (int i = k + 1; i < n; i++) {
      a[i * n + k] = a[i * n + k] / a[k * n + k];
      for (int j = k + 1; j < n; j++)
        a[i * n + j] -= a[i * n + k] * a[k * n + j];
    }
}
