#include <stdbool.h>
void k(int n, bool *a)
{
  for (int i = 0; i < n; i++) a[i] = i % 2;
}
