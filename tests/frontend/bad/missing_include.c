#include <math.h>
#include "no_such_header.h"

void uses_header(int n, double x[n])
{
  for (int i = 0; i < n; i++)
    x[i] = sqrt(x[i]);
}
