#include <stddef.h>
/* a size_t that bounds no loop: t2c takes size_t for sizes only */
void scale(int n, size_t k, double *a)
{
    for (int i = 0; i < n; i++)
        a[i] *= k;
}
