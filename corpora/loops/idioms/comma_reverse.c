/* class: affine — an in-place reversal swapping its two ends, walked by two counters in one
 * comma header, `for (i = 0, j = n - 1; i < j; i++, j--)` (model: a loop over i alone, j as
 * n - 1 - i, the condition i < j as i < n / 2).
 * t2c: size n MINI=41 SMALL=4001 MEDIUM=400001 LARGE=410000001 EXTRALARGE=1640000001
 * t2c: array x[n] inout
 */
void comma_reverse(int n, float *x)
{
  int i, j;
  for (i = 0, j = n - 1; i < j; i++, j--) {
    float t = x[i];
    x[i] = x[j];
    x[j] = t;
  }
}
