/* class: affine — a 5x5 convolution with zero padding, written with local index temporaries.
 * t2c: description out[i][j] = sum over the 5x5 window of w * in, outside pixels read as 0
 * t2c: size h MINI=20 SMALL=200 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: size w MINI=18 SMALL=180 MEDIUM=900 LARGE=3600 EXTRALARGE=7200
 */
void conv5x5(int h, int w, const double in[h][w], const double k[5][5], double out[h][w])
{
  for (int i = 0; i < h; i++)
    for (int j = 0; j < w; j++) {
      double s = 0.0;
      for (int di = 0; di < 5; di++)
        for (int dj = 0; dj < 5; dj++) {
          int r = i + di - 2;
          int c = j + dj - 2;
          if (r >= 0 && r < h && c >= 0 && c < w)
            s += k[di][dj] * in[r][c];
        }
      out[i][j] = s;
    }
}
