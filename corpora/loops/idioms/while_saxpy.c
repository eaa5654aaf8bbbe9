/* class: affine — y = alpha x + y written with a counted while loop (the counter set before
 * it and stepped last: model: read as its for loop).
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=260000000 EXTRALARGE=1040000000
 * t2c: array x[n] in
 * t2c: array y[n] inout
 */
void while_saxpy(int n, float alpha, const float *x, float *y)
{
  int i = 0;
  while (i < n) {
    y[i] = alpha * x[i] + y[i];
    i++;
  }
}
