/* class: gather — image scaling by the nearest source pixel: reads at i / 2, j / 2.
 * t2c: description out[i][j] = in[i / 2][j / 2] for a 2x larger image
 * t2c: size h MINI=8 SMALL=128 MEDIUM=1024 LARGE=2048 EXTRALARGE=4096
 * t2c: size w MINI=10 SMALL=160 MEDIUM=1024 LARGE=2048 EXTRALARGE=4096
 */
void upsample_nearest(int h, int w, const float in[h][w], float out[2 * h][2 * w])
{
  for (int i = 0; i < 2 * h; i++)
    for (int j = 0; j < 2 * w; j++)
      out[i][j] = in[i / 2][j / 2];
}
