/* class: affine — the assignment step of k-means: each point's nearest centre (first on ties).
 * t2c: description label[p] = the index of the centre nearest to point p
 * t2c: size np MINI=40 SMALL=2000 MEDIUM=100000 LARGE=1000000 EXTRALARGE=4000000
 * t2c: size nc MINI=4 SMALL=8 MEDIUM=16 LARGE=16 EXTRALARGE=32
 * t2c: size d MINI=3 SMALL=8 MEDIUM=16 LARGE=16 EXTRALARGE=16
 * t2c: array label[np] out
 */
void kmeans_assign(int np, int nc, int d, const double pts[np][d], const double ctr[nc][d], int *label)
{
  for (int p = 0; p < np; p++) {
    int best = 0;
    double bd = 0.0;
    for (int c = 0; c < nc; c++) {
      double s = 0.0;
      for (int k = 0; k < d; k++)
        s += (pts[p][k] - ctr[c][k]) * (pts[p][k] - ctr[c][k]);
      if (c == 0 || s < bd) {
        bd = s;
        best = c;
      }
    }
    label[p] = best;
  }
}
