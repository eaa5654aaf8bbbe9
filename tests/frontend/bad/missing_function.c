/* Read with --function nope: no such function here. */
void present(int n, double x[n], double y[n])
{
  for (int i = 0; i < n; i++)
    y[i] = x[i];
}
