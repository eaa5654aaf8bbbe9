/* class: affine — a sliding window of k taps whose test keeps it inside the input, `i + k <= n`,
 * with the flat index named once per step (frontend: i <= n - k with n >= k - 1 implied by the output's
 * extent, and the local read as its expression).
 * t2c: size n MINI=40 SMALL=20000 MEDIUM=400000 LARGE=2000000 EXTRALARGE=8000000
 * t2c: size k MINI=5 SMALL=9 MEDIUM=17 LARGE=33 EXTRALARGE=33
 */
void window_sums(const float *in, const float *w, float *out, int n, int k)
{
  for (int i = 0; i + k <= n; i++) {
    float acc = 0.0f;
    for (int j = 0; j < k; j++) {
      int at = i + j;
      acc += in[at] * w[j];
    }
    out[i] = acc;
  }
}
