/* A scalar output through a pointer: *sum is written before it is read. */
void total(int n, const float *x, float *sum)
{
  *sum = 0.0f;
  for (int i = 0; i < n; i++)
    *sum += x[i];
}
