/* class: gather — sums of embedding rows per bag: bag b owns the indices offsets[b] ..
 * offsets[b+1]-1 (bounds read from an array), each picking a table row (a read through data).
 * t2c: description out[b][d] = sum over j in offsets[b] .. offsets[b+1]-1 of table[idx[j]][d]
 * t2c: size nb MINI=6 SMALL=200 MEDIUM=4000 LARGE=210000 EXTRALARGE=840000
 * t2c: size ni MINI=30 SMALL=2000 MEDIUM=40000 LARGE=2100000 EXTRALARGE=8400000
 * t2c: size rows MINI=10 SMALL=1000 MEDIUM=10000 LARGE=100000 EXTRALARGE=100000
 * t2c: size dim MINI=4 SMALL=32 MEDIUM=64 LARGE=64 EXTRALARGE=128
 * t2c: array offsets[nb + 1] in
 * t2c: array idx[ni] in
 * t2c: array table[rows][dim] in
 * t2c: array out[nb][dim] out
 * t2c: domain offsets offsets(0, ni)
 * t2c: domain idx integers(0, rows - 1)
 */
void embedding_bag(int nb, int ni, int rows, int dim, const int *offsets, const int *idx, const float *table,
                   float *out)
{
  for (int b = 0; b < nb; b++)
    for (int d = 0; d < dim; d++) {
      float s = 0.0f;
      for (int j = offsets[b]; j < offsets[b + 1]; j++)
        s += table[idx[j] * dim + d];
      out[b * dim + d] = s;
    }
}
