struct p { int n; double *a; };
void k(struct p s)
{
  for (int i = 0; i < s.n; i++) s.a[i] = 1.0;
}
