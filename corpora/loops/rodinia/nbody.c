/* class: affine — all-pairs gravitational accelerations with softening (n-body's force step).
 * t2c: description acc[i] = sum over j of m[j] (p[j] - p[i]) / (|p[j] - p[i]|^2 + eps)^(3/2)
 * t2c: size n MINI=24 SMALL=256 MEDIUM=2048 LARGE=8192 EXTRALARGE=16384
 * t2c: domain eps uniform(0.01, 0.1)
 */
void nbody(int n, double eps, const double p[n][3], const double m[n], double acc[n][3])
{
  for (int i = 0; i < n; i++) {
    double ax = 0.0, ay = 0.0, az = 0.0;
    for (int j = 0; j < n; j++) {
      double dx = p[j][0] - p[i][0], dy = p[j][1] - p[i][1], dz = p[j][2] - p[i][2];
      double r2 = dx * dx + dy * dy + dz * dz + eps;
      double inv = m[j] / (r2 * sqrt(r2));
      ax += dx * inv;
      ay += dy * inv;
      az += dz * inv;
    }
    acc[i][0] = ax;
    acc[i][1] = ay;
    acc[i][2] = az;
  }
}
