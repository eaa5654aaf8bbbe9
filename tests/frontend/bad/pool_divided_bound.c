/* a window's output count divides by a parameter: no loop bound t2c can take to its end */
void maxpool(int h, int w, int k, const float *in, float *out) {
  int oh = (h - k) / k + 1, ow = (w - k) / k + 1;
  for (int r = 0; r < oh; r++)
    for (int c = 0; c < ow; c++) {
      float m = in[(r * k) * w + c * k];
      for (int dr = 0; dr < k; dr++)
        for (int dc = 0; dc < k; dc++) {
          float v = in[(r * k + dr) * w + c * k + dc];
          if (v > m) m = v;
        }
      out[r * ow + c] = m;
    }
}
