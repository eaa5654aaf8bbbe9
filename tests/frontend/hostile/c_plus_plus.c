template <class T> void k(int n, T *a)
{
  for (int i = 0; i < n; i++) a[i] = 1;
}
