void jumpy(int n, double x[n])
{
  for (int i = 0; i < n; i++) {
    if (x[i] < 0.0)
      goto done;
    x[i] = 2.0 * x[i];
  }
done:
  ;
}
