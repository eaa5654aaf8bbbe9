/* class: affine — 3x3 max pooling with stride 2: the output's extents are (h - 3) / 2 + 1.
 * t2c: description out[i][j] = max over di, dj < 3 of in[2i + di][2j + dj]
 * t2c: size h MINI=9 SMALL=129 MEDIUM=1025 LARGE=4097 EXTRALARGE=8193
 * t2c: size w MINI=11 SMALL=161 MEDIUM=1025 LARGE=4097 EXTRALARGE=8193
 * t2c: constraint h >= 3 && w >= 3
 */
void maxpool_stride2(int h, int w, const float in[h][w], float out[(h - 3) / 2 + 1][(w - 3) / 2 + 1])
{
  for (int i = 0; i < (h - 3) / 2 + 1; i++)
    for (int j = 0; j < (w - 3) / 2 + 1; j++) {
      float m = in[2 * i][2 * j];
      for (int di = 0; di < 3; di++)
        for (int dj = 0; dj < 3; dj++)
          m = fmaxf(m, in[2 * i + di][2 * j + dj]);
      out[i][j] = m;
    }
}
