/*
 * t2c: description Weighted row sums of an SPD matrix
 * t2c: size n MINI=8 SMALL=32 MEDIUM=128
 * t2c: size m MINI=4 SMALL=16 MEDIUM=64
 * t2c: constraint n >= 2 && m >= 1
 * t2c: domain A spd
 * t2c: domain w uniform(0.5, 2)
 * t2c: domain k integers(1, 5)
 */
void weighted_rows(int n, int m, int k, double A[n][n], double w[n], double out[n][m])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      double s = 0.0;
      for (int l = 0; l < n; l++)
        s += A[i][l] * w[l];
      out[i][j] = s * (j + k);
    }
}
