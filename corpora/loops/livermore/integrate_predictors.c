/* class: affine — Livermore loop 9, integrate predictors: a weighted sum of columns per row.
 * t2c: description px[i][0] = dm28 * px[i][12] + ... + dm22 * px[i][6] + c0 * (px[i][4] + px[i][5]) + px[i][2]
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=4000000 EXTRALARGE=16000000
 */
void integrate_predictors(int n, double dm22, double dm23, double dm24, double dm25, double dm26, double dm27,
                          double dm28, double c0, double px[n][13])
{
  for (int i = 0; i < n; i++)
    px[i][0] = dm28 * px[i][12] + dm27 * px[i][11] + dm26 * px[i][10] + dm25 * px[i][9] + dm24 * px[i][8]
               + dm23 * px[i][7] + dm22 * px[i][6] + c0 * (px[i][4] + px[i][5]) + px[i][2];
}
