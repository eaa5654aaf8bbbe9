/* class: affine — gravitational accelerations over an array of structs, each body's position
 * and mass four doubles of one struct (frontend: a struct of one type is a flat array, b[j].m
 * is b[j * 4 + 3]; the drop-in takes `const body *` as the same pointer).
 * t2c: size n MINI=12 SMALL=256 MEDIUM=2048 LARGE=8000 EXTRALARGE=16000
 */
#include <math.h>
typedef struct { double x, y, z, m; } body;
void aos_nbody(int n, const body *b, double *ax, double *ay, double *az)
{
  for (int i = 0; i < n; i++) {
    double sx = 0.0, sy = 0.0, sz = 0.0;
    for (int j = 0; j < n; j++) {
      double dx = b[j].x - b[i].x, dy = b[j].y - b[i].y, dz = b[j].z - b[i].z;
      double r2 = dx * dx + dy * dy + dz * dz + 1e-9;
      double inv = b[j].m / (r2 * sqrt(r2));
      sx += dx * inv;
      sy += dy * inv;
      sz += dz * inv;
    }
    ax[i] = sx;
    ay[i] = sy;
    az[i] = sz;
  }
}
