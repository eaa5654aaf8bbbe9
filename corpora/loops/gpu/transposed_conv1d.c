/* class: gather — a transposed convolution with stride 2 written as a gather: each output sums
 * the inputs whose strided footprint covers it (a modulo test and a division in the subscript).
 * t2c: description out[o] = sum over k < kw with (o - k) even and 0 <= (o - k) / 2 < n of in[(o - k) / 2] * w[k]
 * t2c: size n MINI=20 SMALL=2000 MEDIUM=200000 LARGE=2000000 EXTRALARGE=8000000
 * t2c: size kw MINI=3 SMALL=5 MEDIUM=5 LARGE=7 EXTRALARGE=7
 * t2c: constraint n >= 1 && kw >= 1 && kw <= 16
 * t2c: array in[n] in
 * t2c: array w[kw] in
 * t2c: array out[2 * n + kw - 2] out
 */
void transposed_conv1d(int n, int kw, const double *in, const double *w, double *out)
{
  for (int o = 0; o < 2 * n + kw - 2; o++) {
    double s = 0.0;
    for (int k = 0; k < kw; k++)
      if (o >= k && (o - k) % 2 == 0 && (o - k) / 2 < n)
        s += in[(o - k) / 2] * w[k];
    out[o] = s;
  }
}
