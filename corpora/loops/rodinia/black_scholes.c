/* class: affine — European call and put prices by the Black-Scholes formula.
 * t2c: description call[i], put[i] for spot s[i], strike k[i], expiry t[i], rate r, volatility v
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=4000000 EXTRALARGE=16000000
 * t2c: array s[n] in
 * t2c: array k[n] in
 * t2c: array t[n] in
 * t2c: array call[n] out
 * t2c: array put[n] out
 * t2c: domain s uniform(5, 30)
 * t2c: domain k uniform(1, 100)
 * t2c: domain t uniform(0.25, 10)
 * t2c: domain r uniform(0.01, 0.05)
 * t2c: domain v uniform(0.1, 0.5)
 */
void black_scholes(int n, double r, double v, const double *s, const double *k, const double *t,
                   double *call, double *put)
{
  for (int i = 0; i < n; i++) {
    double sq = sqrt(t[i]);
    double d1 = (log(s[i] / k[i]) + (r + 0.5 * v * v) * t[i]) / (v * sq);
    double d2 = d1 - v * sq;
    double n1 = 0.5 * erfc(-d1 / sqrt(2.0)), n2 = 0.5 * erfc(-d2 / sqrt(2.0));
    double disc = k[i] * exp(-r * t[i]);
    call[i] = s[i] * n1 - disc * n2;
    put[i] = disc * (1.0 - n2) - s[i] * (1.0 - n1);
  }
}
