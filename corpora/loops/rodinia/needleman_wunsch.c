/* class: affine — global sequence alignment scores (Needleman-Wunsch's kind): a 2-D dynamic
 * program whose cell needs its left, upper and upper-left neighbours (anti-diagonal wavefronts).
 * t2c: description score[i][j] = max(score[i-1][j-1] + sim[i][j], score[i-1][j] - gap, score[i][j-1] - gap)
 * t2c: size n MINI=16 SMALL=200 MEDIUM=1000 LARGE=13000 EXTRALARGE=26000
 * t2c: domain sim integers(-4, 4)
 * t2c: domain gap integers(1, 3)
 */
void needleman_wunsch(int n, int gap, const int sim[n][n], int score[n][n])
{
  for (int i = 0; i < n; i++) {
    score[i][0] = -i * gap;
    score[0][i] = -i * gap;
  }
  for (int i = 1; i < n; i++)
    for (int j = 1; j < n; j++) {
      int best = score[i - 1][j - 1] + sim[i][j];
      if (score[i - 1][j] - gap > best) best = score[i - 1][j] - gap;
      if (score[i][j - 1] - gap > best) best = score[i][j - 1] - gap;
      score[i][j] = best;
    }
}
