/* 7-point stencil over a 3-D float grid: interior points from 1 to n-2,
   the boundary copied (if/else in the body). */
void stencil7(int nz, int ny, int nx, float in[nz][ny][nx], float out[nz][ny][nx])
{
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++) {
        if (z == 0 || y == 0 || x == 0 || z == nz - 1 || y == ny - 1 || x == nx - 1) {
          out[z][y][x] = in[z][y][x];
        } else {
          out[z][y][x] = 0.5f * in[z][y][x]
              + 0.125f * (in[z - 1][y][x] + in[z + 1][y][x])
              + 0.0625f * (in[z][y - 1][x] + in[z][y + 1][x] + in[z][y][x - 1] + in[z][y][x + 1]);
        }
      }
}
