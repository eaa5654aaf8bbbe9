/* class: affine — an update under a bool mask with a bool flag choosing accumulate or
 * overwrite, its length an enumerator's multiple (frontend: C's bool as an element type, drawn
 * false or true; `enum { LANES = 4 }` as its value).
 * t2c: size n MINI=10 SMALL=1000 MEDIUM=100000 LARGE=2000000 EXTRALARGE=8000000
 */
#include <stdbool.h>
enum { LANES = 4 };
void flagged_axpy(int n, bool accumulate, double a, const double *x, const bool *mask, double *y)
{
  for (int i = 0; i < LANES * n; i++)
    if (mask[i])
      y[i] = accumulate ? y[i] + a * x[i] : a * x[i];
}
