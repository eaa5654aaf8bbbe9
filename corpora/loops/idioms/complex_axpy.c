/* class: affine — a complex y = a x + y over arrays of structs of two floats, through struct
 * locals (frontend: each struct local is one local per field, `y[i] = t` one store per field).
 * t2c: size n MINI=10 SMALL=1000 MEDIUM=1000000 LARGE=32000000 EXTRALARGE=64000000
 */
struct cplx { float re, im; };
void complex_axpy(int n, float ar, float ai, const struct cplx *x, struct cplx *y)
{
  for (int i = 0; i < n; i++) {
    struct cplx u = x[i], t;
    t.re = ar * u.re - ai * u.im + y[i].re;
    t.im = ar * u.im + ai * u.re + y[i].im;
    y[i] = t;
  }
}
