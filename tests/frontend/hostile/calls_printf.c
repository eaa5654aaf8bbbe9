#include <stdio.h>
void k(int n, double *a)
{
  for (int i = 0; i < n; i++) printf("%f\n", a[i]);
}
