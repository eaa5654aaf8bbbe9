/* class: affine — two planes packed into one interleaved array, the output's counter stepping
 * by 2 beside the loop's in one comma header (model: a loop over i alone, k as 2 * i).
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=8000000 EXTRALARGE=32000000
 * t2c: array re[n] in
 * t2c: array im[n] in
 * t2c: array z[2 * n] out
 */
void interleave_pack(int n, const double *re, const double *im, double *z)
{
  int i, k;
  for (i = 0, k = 0; i < n; i++, k += 2) {
    z[k] = re[i];
    z[k + 1] = im[i];
  }
}
