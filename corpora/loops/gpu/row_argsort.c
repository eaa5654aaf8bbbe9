/* class: gather — a stable argsort of every row (ascending values, ties by smaller index) as a
 * bitonic network for any n: each merge's first step compares i with its mirror i ^ (k - 1), the
 * later ones i with i ^ s, always the smaller pair first, so the cells past n act as +infinity and
 * their comparisons are skipped. Values are read through the order array.
 * t2c: description order[r] = the stable argsort of x[r]
 * t2c: size rows MINI=3 SMALL=64 MEDIUM=512 LARGE=4096 EXTRALARGE=16384
 * t2c: size n MINI=13 SMALL=200 MEDIUM=1000 LARGE=1000 EXTRALARGE=1000
 * t2c: constraint n >= 1 && n <= 1048576
 * t2c: domain x integers(0, 9)
 */
void row_argsort(int rows, int n, const double x[rows][n], int order[rows][n])
{
  for (int r = 0; r < rows; r++)
    for (int i = 0; i < n; i++)
      order[r][i] = i;
  for (int k = 2; k / 2 < n; k *= 2) {
    for (int r = 0; r < rows; r++)
      for (int i = 0; i < n; i++) {
        int j = i ^ (k - 1);
        if (j > i && j < n) {
          int a = order[r][i];
          int b = order[r][j];
          if (x[r][b] < x[r][a] || (x[r][b] == x[r][a] && b < a)) {
            order[r][i] = b;
            order[r][j] = a;
          }
        }
      }
    for (int s = k / 4; s > 0; s /= 2)
      for (int r = 0; r < rows; r++)
        for (int i = 0; i < n; i++) {
          int j = i ^ s;
          if (j > i && j < n) {
            int a = order[r][i];
            int b = order[r][j];
            if (x[r][b] < x[r][a] || (x[r][b] == x[r][a] && b < a)) {
              order[r][i] = b;
              order[r][j] = a;
            }
          }
        }
  }
}
