/* Escape-time iteration (Mandelbrot): for each point c of a grid, the number of steps of
   z <- z*z + c, from z = 0, before |z| > 2, at most maxit.  Class: affine (the escape
   test is a condition inside a fixed-length loop). */
// t2c: size h MINI=8 SMALL=64 MEDIUM=256 LARGE=1024 EXTRALARGE=2048
// t2c: size w MINI=8 SMALL=64 MEDIUM=256 LARGE=1024 EXTRALARGE=2048
// t2c: size maxit MINI=16 SMALL=64 MEDIUM=128 LARGE=256 EXTRALARGE=512
// t2c: domain cr uniform(-2, 0.5)
// t2c: domain ci uniform(-1.25, 1.25)
void escape_time(int h, int w, int maxit, const double cr[w], const double ci[h], int count[h][w])
{
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) {
            double zr = 0.0, zi = 0.0;
            int n = 0;
            for (int it = 0; it < maxit; it++)
                if (zr * zr + zi * zi <= 4.0) {
                    double t = zr * zr - zi * zi + cr[j];
                    zi = 2.0 * zr * zi + ci[i];
                    zr = t;
                    n = n + 1;
                }
            count[i][j] = n;
        }
}
