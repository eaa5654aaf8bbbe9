typedef struct { double re, im; } cplx;

void magnitude(int n, const double *re, const double *im, double *out)
{
  for (int i = 0; i < n; i++) {
    cplx z;
    z.re = re[i];
    z.im = im[i];
    out[i] = z.re * z.re + z.im * z.im;
  }
}
