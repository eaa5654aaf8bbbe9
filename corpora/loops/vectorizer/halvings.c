/* class: data-dependent — a while loop per element: how many halvings bring a[i] to at most 1.
 * t2c: description b[i] = the number of times a[i] is halved until it is at most 1
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=4000000 EXTRALARGE=16000000
 * t2c: array a[n] in
 * t2c: array b[n] out
 * t2c: domain a uniform(0.5, 1000000)
 */
void halvings(int n, const double *a, int *b)
{
  for (int i = 0; i < n; i++) {
    double v = a[i];
    int c = 0;
    while (v > 1.0) {
      v = v / 2.0;
      c++;
    }
    b[i] = c;
  }
}
