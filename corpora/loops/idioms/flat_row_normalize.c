/* class: affine — every row scaled to unit L2 norm, over flat pointers indexed through an
 * IDX macro with long counters and no `t2c: array`, float data summed in double (frontend:
 * the pointers are read as rows of cols).
 * t2c: size rows MINI=6 SMALL=128 MEDIUM=1024 LARGE=4096 EXTRALARGE=8192
 * t2c: size cols MINI=10 SMALL=128 MEDIUM=1024 LARGE=4096 EXTRALARGE=8192
 */
#include <math.h>
#define IDX(r, c) ((r) * cols + (c))

void flat_row_normalize(long rows, long cols, const float *in, float *out)
{
  for (long r = 0; r < rows; r++) {
    double ss = 0.0;
    for (long c = 0; c < cols; c++)
      ss += (double)in[IDX(r, c)] * in[IDX(r, c)];
    const float inv = (float)(1.0 / sqrt(ss + 1e-12));
    for (long c = 0; c < cols; c++)
      out[IDX(r, c)] = in[IDX(r, c)] * inv;
  }
}
