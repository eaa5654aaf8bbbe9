/* class: affine — the last cell of a small-integer image holding its largest value, scanning
 * column by column (`>=` keeps the last of the ties, and the image has many), the best cell
 * kept as its two coordinates and its value read again through them (poly: one grid reduction
 * over the nest's flat range, a row's cells the fastest for coalesced reads; ties go to the
 * greatest rank in the loops' order, column first).
 * t2c: size h MINI=12 SMALL=200 MEDIUM=2000 LARGE=4000 EXTRALARGE=8000
 * t2c: size w MINI=17 SMALL=300 MEDIUM=2000 LARGE=4000 EXTRALARGE=8000
 * t2c: array img[h][w] in
 * t2c: array at[2] out
 * t2c: domain img integers(0, 9)
 */
void last_peak_column(int h, int w, const int img[h][w], int at[2])
{
  int r = 0, c = 0;
  for (int x = 0; x < w; x++)
    for (int y = 0; y < h; y++)
      if (img[y][x] >= img[r][c]) {
        r = y;
        c = x;
      }
  at[0] = r;
  at[1] = c;
}
