/* A Needleman-Wunsch-like 2-d dynamic program: each cell is the best of its diagonal
   neighbour plus a similarity and its upper and left neighbours minus a gap penalty.
   Class: affine, loop-carried in both loops (an anti-diagonal wavefront). */
// t2c: size n MINI=16 SMALL=64 MEDIUM=512 LARGE=2048 EXTRALARGE=4096
// t2c: domain sim integers(-4, 4)
void dp_max_neighbours(int n, int score[n][n], const int sim[n][n])
{
    for (int i = 1; i < n; i++)
        for (int j = 1; j < n; j++) {
            int best = score[i - 1][j - 1] + sim[i][j];
            int up = score[i - 1][j] - 1;
            int left = score[i][j - 1] - 1;
            if (up > best) best = up;
            if (left > best) best = left;
            score[i][j] = best;
        }
}
