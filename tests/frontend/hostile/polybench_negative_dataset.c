/* A dataset block with a negative size. */
#ifdef MINI_DATASET
#define N -5
#endif
#if !defined(MINI_DATASET)
#define LARGE_DATASET
#define N 2000
#endif
void k(int n, double *a)
{
  for (int i = 0; i < n; i++) a[i] = 1.0;
}
