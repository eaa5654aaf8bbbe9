double table[16];
void k(int n, double *a)
{
  for (int i = 0; i < n; i++) a[i] = table[i % 16];
}
