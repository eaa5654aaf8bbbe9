/* class: affine — a matrix's mean, smallest and largest entries and count of negatives in one
 * nest, each statistic written the plain way (a sum in double, fminf, a maximum by `if`, a counter under a
 * condition; poly: one grid reduction over the nest's flat range, each block combining its
 * threads' parts, the last block the blocks').
 * t2c: size rows MINI=12 SMALL=200 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: size cols MINI=17 SMALL=300 MEDIUM=1000 LARGE=4000 EXTRALARGE=8000
 * t2c: array m[rows][cols] in
 * t2c: array out[4] out
 */
#include <math.h>

void matrix_summary(int rows, int cols, const float m[rows][cols], float *out)
{
  double sum = 0.0;
  float lo = INFINITY, hi = -INFINITY;
  int neg = 0;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      sum += m[r][c];
      lo = fminf(lo, m[r][c]);
      if (m[r][c] > hi)
        hi = m[r][c];
      if (m[r][c] < 0.0f)
        neg++;
    }
  out[0] = (float)(sum / ((double)rows * cols));
  out[1] = lo;
  out[2] = hi;
  out[3] = (float)neg;
}
