/* class: affine — the largest sum of a contiguous run (Kadane's scan: a maximum of running sums).
 * t2c: description the maximum over i <= j of a[i] + ... + a[j]
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=110000000 EXTRALARGE=440000000
 * t2c: array a[n] in
 * t2c: array best[1] out
 * t2c: domain a uniform(-1, 1)
 */
void max_running_sum(int n, const double *a, double *best)
{
  double run = a[0], m = a[0];
  for (int i = 1; i < n; i++) {
    run = run + a[i] > a[i] ? run + a[i] : a[i];
    if (run > m)
      m = run;
  }
  best[0] = m;
}
