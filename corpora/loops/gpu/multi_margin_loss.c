/* class: affine — the multi-class hinge loss of each row: the score of the row's
 * label, picked by a comparison loop that keeps the one element where j equals the label, then
 * the margins of every other class against it.
 * t2c: description loss[i] = sum over j != label[i] of max(0, 1 - x[i][label[i]] + x[i][j]) / c
 * t2c: size n MINI=8 SMALL=512 MEDIUM=4096 LARGE=16384 EXTRALARGE=65536
 * t2c: size c MINI=10 SMALL=100 MEDIUM=1000 LARGE=1000 EXTRALARGE=1000
 * t2c: array label[n] in
 * t2c: domain label integers(0, c - 1)
 * t2c: domain x uniform(-2, 2)
 */
void multi_margin_loss(int n, int c, const float x[n][c], const int *label, float loss[n])
{
  for (int i = 0; i < n; i++) {
    float picked = 0.0f;
    for (int j = 0; j < c; j++)
      if (j == label[i])
        picked = x[i][j];
    float s = 0.0f;
    for (int j = 0; j < c; j++)
      if (j != label[i])
        s += fmaxf(0.0f, 1.0f - picked + x[i][j]);
    loss[i] = s / c;
  }
}
