/* Sizes only under a dataset macro t2c does not know. */
#if !defined(HUGE_DATASET)
#define HUGE_DATASET
#endif
#ifdef HUGE_DATASET
#define N 100000
#endif
void k(int n, double *a)
{
  for (int i = 0; i < n; i++) a[i] = 1.0;
}
