/* t2c: size n MINI=-4 SMALL=8 MEDIUM=16 LARGE=32 EXTRALARGE=64 */
void k(int n, double *a)
{
  for (int i = 0; i < n; i++) a[i] = 1.0;
}
