#include <string.h>

static const double WEIGHT = 0.5;

/* class: affine — C as a library writes it: the output zeroed by memset before the loops that
 * add into it, a file-scope constant, loops tested with != (frontend: a loop, the constant's
 * value, <), and the sizes after the arrays.
 * t2c: size rows MINI=9 SMALL=300 MEDIUM=2000 LARGE=8000 EXTRALARGE=16000
 * t2c: size cols MINI=11 SMALL=200 MEDIUM=2000 LARGE=8000 EXTRALARGE=16000
 */
void memset_colsum(const double *A, double *s, int rows, int cols)
{
  memset(s, 0, cols * sizeof(double));
  for (int i = 0; i != rows; ++i)
    for (int j = 0; j != cols; ++j)
      s[j] += WEIGHT * A[i * cols + j];
}
