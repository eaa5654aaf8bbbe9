/* A size under the default dataset that is no integer; another given through a macro. */
#define M 7
#ifdef MINI_DATASET
#define N (2 * M)
#endif
#if !defined(MINI_DATASET)
#define LARGE_DATASET
#define N big
#endif
void k(int n, double *a)
{
  for (int i = 0; i < n; i++) a[i] = 1.0;
}
