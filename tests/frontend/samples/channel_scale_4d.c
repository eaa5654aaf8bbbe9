/* Per-channel affine transform of a 4-D float tensor (batch, channel, height, width). */
void channel_affine(int nb, int nc, int nh, int nw, float x[nb][nc][nh][nw],
                    float gamma[nc], float beta[nc], float y[nb][nc][nh][nw])
{
  for (int b = 0; b < nb; b++)
    for (int c = 0; c < nc; c++)
      for (int h = 0; h < nh; h++)
        for (int w = 0; w < nw; w++)
          y[b][c][h][w] = gamma[c] * x[b][c][h][w] + beta[c];
}
