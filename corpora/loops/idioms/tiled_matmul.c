/* class: affine — a matrix product blocked by hand for a CPU cache: tile loops over i, j and k
 * around point loops bounded by `MIN(tile + size, extent)`, the k tiles narrower than the others
 * (model: the untiled i, j, k nest; legal since the only dependence, the sum over k, keeps its
 * order in both).
 * t2c: size ni MINI=40 SMALL=120 MEDIUM=1000 LARGE=1000 EXTRALARGE=4000
 * t2c: size nj MINI=36 SMALL=110 MEDIUM=1100 LARGE=1100 EXTRALARGE=4400
 * t2c: size nk MINI=44 SMALL=130 MEDIUM=1200 LARGE=1200 EXTRALARGE=4800
 * t2c: array A[ni][nk] in
 * t2c: array B[nk][nj] in
 * t2c: array C[ni][nj] inout
 */
#define MIN(x, y) ((x) < (y) ? (x) : (y))

void tiled_matmul(int ni, int nj, int nk, const double A[ni][nk], const double B[nk][nj],
                  double C[ni][nj])
{
  int ii, jj, kk, i, j, k;
  for (ii = 0; ii < ni; ii += 32)
    for (jj = 0; jj < nj; jj += 32)
      for (kk = 0; kk < nk; kk += 16)
        for (i = ii; i < MIN(ii + 32, ni); i++)
          for (j = jj; j < MIN(jj + 32, nj); j++)
            for (k = kk; k < MIN(kk + 16, nk); k++)
              C[i][j] += A[i][k] * B[k][j];
}
