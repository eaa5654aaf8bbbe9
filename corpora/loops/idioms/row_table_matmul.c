/* class: affine — a matrix product over tables of row pointers indexed from 1, as Numerical
 * Recipes allocates a matrix (`double **a` over a[1..n][1..n]) (frontend: each table is a 2-d
 * array of n + 1 rows of n + 1, the drop-in copies the rows through contiguous memory).
 * t2c: size n MINI=8 SMALL=64 MEDIUM=256 LARGE=1000 EXTRALARGE=2000
 */
void row_table_matmul(int n, double **a, double **b, double **c)
{
  for (int i = 1; i <= n; i++)
    for (int j = 1; j <= n; j++) {
      double sum = 0.0;
      for (int k = 1; k <= n; k++)
        sum += a[i][k] * b[k][j];
      c[i][j] = sum;
    }
}
