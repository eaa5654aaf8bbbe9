/* class: affine — a scaled copy written as a do-while loop, behind the size test that keeps it
 * from running once on empty input (model: the test every valid size passes is its branch, the
 * do-while, whose first test then passes, its for loop).
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=110000000 EXTRALARGE=440000000
 * t2c: array x[n] in
 * t2c: array y[n] out
 */
void do_while_scale(int n, float alpha, const float *x, float *y)
{
  int i = 0;
  if (n > 0) {
    do {
      y[i] = alpha * x[i];
      i++;
    } while (i < n);
  }
}
