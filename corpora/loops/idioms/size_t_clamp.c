/* class: affine — clamping with size_t counters and a typedef'd element type, as library code
 * writes them (frontend: typedefs are spelled out; size_t is unsigned long).
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=57000000 EXTRALARGE=228000000
 * t2c: array x[n] in
 * t2c: array y[n] out
 */
#include <stddef.h>
typedef double real;

void size_t_clamp(int n, real lo, real hi, const real *x, real *y)
{
  for (size_t i = 0; i < (size_t)n; i++) {
    real v = x[i];
    y[i] = v < lo ? lo : (v > hi ? hi : v);
  }
}
