#include <stddef.h>
/* a size_t size: t2c reads sizes as int or long */
void scale(size_t n, double *a)
{
    for (int i = 0; i < n; i++)
        a[i] *= 2.0;
}
