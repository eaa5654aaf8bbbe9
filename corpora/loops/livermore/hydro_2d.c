/* class: affine — Livermore loop 18, 2-D explicit hydrodynamics (three sweeps of a 2-D grid).
 * t2c: description velocity and position updates from the pressure and area fields
 * t2c: size n MINI=12 SMALL=100 MEDIUM=400 LARGE=2000 EXTRALARGE=4000
 * t2c: size m MINI=10 SMALL=90 MEDIUM=380 LARGE=1900 EXTRALARGE=3800
 * t2c: constraint n >= 3 && m >= 3
 */
void hydro_2d(int n, int m, double t, double s, double za[n][m], double zb[n][m], double zp[n][m],
              double zq[n][m], double zr[n][m], double zm[n][m], double zu[n][m], double zv[n][m],
              double zz[n][m])
{
  for (int j = 1; j < n - 1; j++)
    for (int k = 1; k < m - 1; k++) {
      za[j][k] = (zp[j + 1][k - 1] + zq[j + 1][k - 1] - zp[j][k - 1] - zq[j][k - 1])
               * (zr[j][k] + zr[j][k - 1]) / (zm[j][k - 1] + zm[j + 1][k - 1]);
      zb[j][k] = (zp[j][k - 1] + zq[j][k - 1] - zp[j][k] - zq[j][k])
               * (zr[j][k] + zr[j - 1][k]) / (zm[j][k] + zm[j][k - 1]);
    }
  for (int j = 1; j < n - 1; j++)
    for (int k = 1; k < m - 1; k++) {
      zu[j][k] += s * (za[j][k] * (zz[j][k] - zz[j + 1][k]) - za[j - 1][k] * (zz[j][k] - zz[j - 1][k])
                      - zb[j][k] * (zz[j][k] - zz[j][k - 1]) + zb[j][k + 1] * (zz[j][k] - zz[j][k + 1]));
      zv[j][k] += s * (za[j][k] * (zr[j][k] - zr[j + 1][k]) - za[j - 1][k] * (zr[j][k] - zr[j - 1][k])
                      - zb[j][k] * (zr[j][k] - zr[j][k - 1]) + zb[j][k + 1] * (zr[j][k] - zr[j][k + 1]));
    }
  for (int j = 1; j < n - 1; j++)
    for (int k = 1; k < m - 1; k++) {
      zr[j][k] = zr[j][k] + t * zu[j][k];
      zz[j][k] = zz[j][k] + t * zv[j][k];
    }
}
