__global__ void k(int n, double *a)
{
  int i = threadIdx.x;
  if (i < n) a[i] = 1.0;
}
