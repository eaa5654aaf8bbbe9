/* Forward substitution L x = b (j < i) and a lower symmetric rank-1 update (j <= i).
   t2c: domain L diagonally_dominant */
void lower_solve_update(int n, double L[n][n], double b[n], double x[n], double S[n][n])
{
  for (int i = 0; i < n; i++) {
    double t = b[i];
    for (int j = 0; j < i; j++)
      t -= L[i][j] * x[j];
    x[i] = t / L[i][i];
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      S[i][j] += x[i] * x[j];
}
