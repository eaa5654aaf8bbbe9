struct params {
  double alpha;
  int n;
};

void affine_ptr(int n, struct params *p, double x[n], double y[n])
{
  for (int i = 0; i < n; i++)
    y[i] = p->alpha * x[i];
}
