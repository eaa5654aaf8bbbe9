/* class: affine — a horizontal blur with a centred window: the offset of tap t is t - taps / 2
 * (a division of a size by a constant), edges clamped.
 * t2c: description out[i][j] = sum over t < taps of g[t] * in[i][clamp(j + t - taps / 2, 0, w - 1)]
 * t2c: size h MINI=8 SMALL=128 MEDIUM=1024 LARGE=5200 EXTRALARGE=10400
 * t2c: size w MINI=12 SMALL=160 MEDIUM=1024 LARGE=5200 EXTRALARGE=10400
 * t2c: size taps MINI=5 SMALL=7 MEDIUM=9 LARGE=9 EXTRALARGE=9
 * t2c: constraint h >= 1 && w >= 1 && taps >= 1 && taps <= 33
 * t2c: domain g uniform(0, 0.2)
 */
void gaussian_blur(int h, int w, int taps, const float g[taps], const float in[h][w], float out[h][w])
{
  for (int i = 0; i < h; i++)
    for (int j = 0; j < w; j++) {
      float s = 0.0f;
      for (int t = 0; t < taps; t++) {
        int c = j + t - taps / 2;
        c = c < 0 ? 0 : (c > w - 1 ? w - 1 : c);
        s += g[t] * in[i][c];
      }
      out[i][j] = s;
    }
}
