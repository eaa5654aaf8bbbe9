void labelled(int n, double x[n])
{
  for (int i = 0; i < n; i++) {
    x[i] = 1.0;
  }
done:
  ;
}
