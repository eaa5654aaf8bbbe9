/* class: gather — a quasi-affine write: de-interleaving pairs, even elements to row 0 and odd ones
 * to row 1 (subscripts with a modulo and a division by a constant).
 * t2c: description b[i % 2][i / 2] = a[i] for i < 2h
 * t2c: size h MINI=20 SMALL=2000 MEDIUM=200000 LARGE=8000000 EXTRALARGE=32000000
 */
void even_odd_split(int h, const double a[2 * h], double b[2][h])
{
  for (int i = 0; i < 2 * h; i++)
    b[i % 2][i / 2] = a[i];
}
