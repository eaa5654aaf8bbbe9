/* class: affine — each iteration reads the element the next one writes (an anti-dependence).
 * t2c: description a[i] = a[i+1] + b[i] for i < n - 1, in order
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=130000000 EXTRALARGE=520000000
 * t2c: constraint n >= 2
 * t2c: array a[n] inout
 * t2c: array b[n] in
 */
void forward_dependence(int n, double *a, const double *b)
{
  for (int i = 0; i < n - 1; i++)
    a[i] = a[i + 1] + b[i];
}
