/* class: affine — one speckle-reducing anisotropic diffusion step (Rodinia srad's kind):
 * gradients, a diffusion coefficient per pixel, then the divergence update.
 * t2c: description img' = img + lambda/4 * div(c * grad img), c from the local gradient statistics
 * t2c: size h MINI=16 SMALL=128 MEDIUM=512 LARGE=2048 EXTRALARGE=4096
 * t2c: size w MINI=14 SMALL=120 MEDIUM=500 LARGE=2000 EXTRALARGE=4000
 * t2c: constraint h >= 3 && w >= 3
 * t2c: domain img uniform(0.5, 1.5)
 * t2c: domain q0 uniform(0.05, 0.2)
 * t2c: domain lambda uniform(0.1, 0.5)
 */
void srad(int h, int w, double q0, double lambda, double img[h][w], double c[h][w], double dn[h][w],
          double ds[h][w], double dw[h][w], double de[h][w])
{
  for (int i = 1; i < h - 1; i++)
    for (int j = 1; j < w - 1; j++) {
      double v = img[i][j];
      dn[i][j] = img[i - 1][j] - v;
      ds[i][j] = img[i + 1][j] - v;
      dw[i][j] = img[i][j - 1] - v;
      de[i][j] = img[i][j + 1] - v;
      double g2 = (dn[i][j] * dn[i][j] + ds[i][j] * ds[i][j] + dw[i][j] * dw[i][j] + de[i][j] * de[i][j]) / (v * v);
      double l = (dn[i][j] + ds[i][j] + dw[i][j] + de[i][j]) / v;
      double num = 0.5 * g2 - 0.0625 * l * l;
      double den = (1.0 + 0.25 * l) * (1.0 + 0.25 * l);
      double q = num / den;
      double cc = 1.0 / (1.0 + (q - q0 * q0) / (q0 * q0 * (1.0 + q0 * q0)));
      c[i][j] = cc < 0.0 ? 0.0 : (cc > 1.0 ? 1.0 : cc);
    }
  for (int i = 1; i < h - 2; i++)
    for (int j = 1; j < w - 2; j++) {
      double div = c[i][j] * (dn[i][j] + dw[i][j]) + c[i + 1][j] * ds[i][j] + c[i][j + 1] * de[i][j];
      img[i][j] = img[i][j] + 0.25 * lambda * div;
    }
}
