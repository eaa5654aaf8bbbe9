#include <stddef.h>

/* class: affine — rows scaled through pointers walked with *p++, C as written for a CPU, and a
 * size_t loop counting down in its test (frontend: y[i*m + j], and i > 0 reading i - 1).
 * t2c: size n MINI=9 SMALL=300 MEDIUM=1500 LARGE=4000 EXTRALARGE=8000
 * t2c: size m MINI=12 SMALL=250 MEDIUM=1400 LARGE=4000 EXTRALARGE=8000
 */
void walked_rows(size_t n, size_t m, const double *x, const double *s, double *y, double *norms)
{
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < m; j++)
      *y++ = s[i] * *x++;
  for (size_t i = n; i-- > 0;)
    norms[i] = s[i] * s[i];
}
