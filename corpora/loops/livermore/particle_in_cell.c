/* class: data-dependent — Livermore loop 13's kind, particle in cell: each particle reads the
 * field at its cell and deposits a charge there (a scatter-add through computed indices).
 * t2c: description particles move by the field at their cell; each adds 1 to its new cell's count
 * t2c: size np MINI=40 SMALL=4000 MEDIUM=100000 LARGE=65000000 EXTRALARGE=260000000
 * t2c: size nc MINI=16 SMALL=256 MEDIUM=4096 LARGE=65536 EXTRALARGE=262144
 * t2c: array pos[np] inout
 * t2c: array field[nc] in
 * t2c: array count[nc] inout
 * t2c: domain pos uniform(0, 1)
 * t2c: domain field uniform(-0.01, 0.01)
 */
void particle_in_cell(int np, int nc, double *pos, const double *field, int *count)
{
  for (int p = 0; p < np; p++) {
    int c = (int)(pos[p] * (nc - 1));
    double x = pos[p] + field[c];
    if (x < 0.0) x = 0.0;
    if (x > 1.0) x = 1.0;
    pos[p] = x;
    count[(int)(x * (nc - 1))] += 1;
  }
}
