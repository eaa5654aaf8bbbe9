/* class: affine — an element-wise operation picked per element by an op-code array through a
 * switch whose cases end in break, two labels sharing one case (model: the if / else-if chain
 * on op[i]).
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=8000000 EXTRALARGE=32000000
 * t2c: array op[n] in
 * t2c: domain op integers(0, 4)
 * t2c: array x[n] in
 * t2c: array y[n] in
 * t2c: array z[n] out
 */
#include <math.h>

void opcode_switch(int n, const int *op, const float *x, const float *y, float *z)
{
  for (int i = 0; i < n; i++) {
    switch (op[i]) {
    case 0:
      z[i] = x[i] + y[i];
      break;
    case 1:
      z[i] = x[i] - y[i];
      break;
    case 2:
    case 3:
      z[i] = x[i] * y[i];
      break;
    default:
      z[i] = fmaxf(x[i], y[i]);
      break;
    }
  }
}
