/* class: affine — a float matrix product whose dot products accumulate in double (the precision
 * of BLAS's dsdot): each product rounds to float, the running sum does not.
 * t2c: description c = a x b for an m x k float matrix a and a k x n float matrix b, each dot product summed in double
 * t2c: size m MINI=8 SMALL=60 MEDIUM=500 LARGE=800 EXTRALARGE=2000
 * t2c: size n MINI=9 SMALL=70 MEDIUM=600 LARGE=900 EXTRALARGE=2300
 * t2c: size k MINI=10 SMALL=80 MEDIUM=700 LARGE=1000 EXTRALARGE=2600
 */
void mixed_matmul(int m, int n, int k, const float a[m][k], const float b[k][n], float c[m][n])
{
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double s = 0.0;
      for (int p = 0; p < k; p++)
        s += a[i][p] * b[p][j];
      c[i][j] = (float)s;
    }
}
