/* Clamp with if / else if / else and a leaky ReLU with a ternary. */
void clamp_relu(int n, float lo, float hi, float x[n], float c[n], float r[n])
{
  for (int i = 0; i < n; i++) {
    if (x[i] < lo)
      c[i] = lo;
    else if (x[i] > hi)
      c[i] = hi;
    else
      c[i] = x[i];
    r[i] = x[i] > 0.0f ? x[i] : 0.01f * x[i];
  }
}
