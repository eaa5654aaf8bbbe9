typedef struct { double v[2]; } pair;

void magnitude(int n, const double *re, const double *im, double *out)
{
  for (int i = 0; i < n; i++) {
    pair z;
    z.v[0] = re[i];
    z.v[1] = im[i];
    out[i] = z.v[0] * z.v[0] + z.v[1] * z.v[1];
  }
}
