void k(void)
{
  double a[4];
  a[0] = 1.0;
}
