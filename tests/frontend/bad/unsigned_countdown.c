#include <stddef.h>
void reverse_scale(int n, double *a)
{
    /* counts a size_t down to 0: `i >= 0` never fails, the loop never ends */
    for (size_t i = n - 1; i >= 0; i--)
        a[i] *= 2.0;
}
