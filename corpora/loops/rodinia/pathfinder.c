/* class: affine — a row-by-row dynamic program (Rodinia pathfinder's kind): the cheapest path
 * from the top row, each step moving to one of the three cells below.
 * t2c: description cost[j] = wall[rows-1][j] + min over the paths from row 0 ending at column j
 * t2c: size rows MINI=10 SMALL=100 MEDIUM=500 LARGE=2000 EXTRALARGE=4000
 * t2c: size cols MINI=20 SMALL=1000 MEDIUM=10000 LARGE=100000 EXTRALARGE=200000
 * t2c: constraint rows >= 1 && cols >= 2
 * t2c: array wall[rows][cols] in
 * t2c: array cost[cols] out
 * t2c: array prev[cols] inout
 * t2c: domain wall integers(0, 9)
 */
void pathfinder(int rows, int cols, const int *wall, int *cost, int *prev)
{
  for (int j = 0; j < cols; j++)
    prev[j] = wall[j];
  for (int i = 1; i < rows; i++) {
    for (int j = 0; j < cols; j++) {
      int m = prev[j];
      if (j > 0 && prev[j - 1] < m) m = prev[j - 1];
      if (j < cols - 1 && prev[j + 1] < m) m = prev[j + 1];
      cost[j] = wall[i * cols + j] + m;
    }
    for (int j = 0; j < cols; j++)
      prev[j] = cost[j];
  }
  for (int j = 0; j < cols; j++)
    cost[j] = prev[j];
}
