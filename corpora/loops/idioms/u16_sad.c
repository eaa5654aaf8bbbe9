/* class: affine — the sum of absolute differences of two 16-bit images into an unsigned 64-bit
 * total, with the signed 16-bit difference image (frontend: uint16_t, int16_t and uint64_t are
 * element types; an unsigned sum is a reduction, exact in any order).
 * t2c: size h MINI=7 SMALL=200 MEDIUM=1500 LARGE=8000 EXTRALARGE=16000
 * t2c: size w MINI=9 SMALL=240 MEDIUM=1600 LARGE=8000 EXTRALARGE=16000
 */
#include <stdint.h>
void u16_sad(int h, int w, const uint16_t *a, const uint16_t *b, int16_t *d, uint64_t *total)
{
  uint64_t t = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int v = (int)a[y * w + x] - (int)b[y * w + x];
      d[y * w + x] = (int16_t)v;
      t += (uint64_t)(v < 0 ? -v : v);
    }
  *total = t;
}
