#if !defined(MINI_DATASET) && !defined(LARGE_DATASET)
#define HUGE_DATASET
#endif
#ifdef HUGE_DATASET
#define N -7
#endif
void k(int n, double *a)
{
  for (int i = 0; i < n; i++) a[i] = 1.0;
}
