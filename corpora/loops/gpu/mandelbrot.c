/* class: data-dependent — escape-time iteration counts (a loop whose exit depends on the data).
 * t2c: description count[i][j] = iterations of z = z^2 + c before |z| > 2, at most maxit
 * t2c: size h MINI=16 SMALL=100 MEDIUM=400 LARGE=1200 EXTRALARGE=2400
 * t2c: size w MINI=20 SMALL=120 MEDIUM=500 LARGE=1600 EXTRALARGE=3200
 * t2c: size maxit MINI=20 SMALL=50 MEDIUM=100 LARGE=200 EXTRALARGE=200
 */
void mandelbrot(int h, int w, int maxit, int count[h][w])
{
  for (int i = 0; i < h; i++)
    for (int j = 0; j < w; j++) {
      double cr = -2.0 + 3.0 * j / w, ci = -1.5 + 3.0 * i / h;
      double zr = 0.0, zi = 0.0;
      int it = 0;
      for (int t = 0; t < maxit; t++) {
        if (zr * zr + zi * zi > 4.0)
          break;
        double nr = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = nr;
        it++;
      }
      count[i][j] = it;
    }
}
