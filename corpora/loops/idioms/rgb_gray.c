/* class: affine — an RGB image of byte triples to grey levels, through a pointer to the pixel
 * (frontend: a struct of three unsigned chars is three bytes, `p->g` through `p = &img[e]` is
 * img[e * 3 + 1]).
 * t2c: size h MINI=6 SMALL=120 MEDIUM=1000 LARGE=6000 EXTRALARGE=12000
 * t2c: size w MINI=9 SMALL=160 MEDIUM=1200 LARGE=8000 EXTRALARGE=16000
 */
typedef struct { unsigned char r, g, b; } pixel;
void rgb_gray(int h, int w, const pixel *img, unsigned char *gray)
{
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const pixel *p = &img[y * w + x];
      gray[y * w + x] = (unsigned char)((77 * p->r + 150 * p->g + 29 * p->b) >> 8);
    }
}
