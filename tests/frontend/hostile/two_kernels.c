void k1(int n, double *a)
{
  a[0] = 1.0;
}
void k2(int n, double *a)
{
  a[0] = 2.0;
}
