/* class: affine — thermal simulation steps on a chip grid (Rodinia hotspot's kind): each step
 * reads the temperature and power grids and writes the next temperature, edges clamped.
 * t2c: description tsteps explicit steps of t' = t + step * (power + neighbours' flow - leak)
 * t2c: size tsteps MINI=4 SMALL=10 MEDIUM=20 LARGE=40 EXTRALARGE=80
 * t2c: size n MINI=16 SMALL=128 MEDIUM=512 LARGE=2048 EXTRALARGE=4096
 */
void hotspot(int tsteps, int n, double step, double cap, const double power[n][n], double temp[n][n],
             double next[n][n])
{
  for (int t = 0; t < tsteps; t++) {
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double up = temp[i > 0 ? i - 1 : i][j], down = temp[i < n - 1 ? i + 1 : i][j];
        double left = temp[i][j > 0 ? j - 1 : j], right = temp[i][j < n - 1 ? j + 1 : j];
        next[i][j] = temp[i][j] + step * (power[i][j] + (up + down + left + right - 4.0 * temp[i][j]) * 0.1
                                          - temp[i][j] * cap);
      }
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        temp[i][j] = next[i][j];
  }
}
