// t2c: array data[n] in
// t2c: domain data integers(0, 1000)
// t2c: array hist[nb] out
void histogram(int n, int nb, const int *data, int *hist)
{
  for (int b = 0; b < nb; b++)
    hist[b] = 0;
  for (int i = 0; i < n; i++) {
    int b = data[i] % nb;
    hist[b] += 1;
  }
}
