#include <math.h>

/* Math library calls in a kernel body. */
void mathy(int n, double x[n], float f[n], double out[n], float g[n])
{
  for (int i = 0; i < n; i++) {
    out[i] = sqrt(fabs(x[i])) + exp(x[i]) - pow(x[i], 2.0);
    g[i] = fmaxf(f[i], 0.25f);
  }
}
