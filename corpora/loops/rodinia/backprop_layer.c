/* class: affine — a fully connected layer's forward pass with a logistic activation.
 * t2c: description out[j] = 1 / (1 + exp(-(b[j] + sum_i in[i] * w[i][j])))
 * t2c: size nin MINI=16 SMALL=256 MEDIUM=2048 LARGE=8192 EXTRALARGE=16384
 * t2c: size nout MINI=8 SMALL=64 MEDIUM=512 LARGE=2048 EXTRALARGE=4096
 */
void backprop_layer(int nin, int nout, const double in[nin], const double w[nin][nout], const double b[nout],
                    double out[nout])
{
  for (int j = 0; j < nout; j++) {
    double s = b[j];
    for (int i = 0; i < nin; i++)
      s += in[i] * w[i][j];
    out[j] = 1.0 / (1.0 + exp(-s));
  }
}
