/* class: data-dependent — a histogram: increments of cells chosen by the data.
 * t2c: description hist[b] = how many data[i] fall in bin b of nb equal bins over [0, 1)
 * t2c: size n MINI=40 SMALL=4000 MEDIUM=400000 LARGE=160000000 EXTRALARGE=640000000
 * t2c: size nb MINI=8 SMALL=64 MEDIUM=256 LARGE=256 EXTRALARGE=1024
 * t2c: array data[n] in
 * t2c: array hist[nb] out
 * t2c: domain data uniform(0, 0.999)
 */
void histogram(int n, int nb, const double *data, int *hist)
{
  for (int b = 0; b < nb; b++)
    hist[b] = 0;
  for (int i = 0; i < n; i++)
    hist[(int)(data[i] * nb)] += 1;
}
