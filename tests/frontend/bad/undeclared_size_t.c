void clamp_rows(int rows, int cols, float lo, float *m)
{
  for (int r = 0; r < rows; r++) {
    float *row = m + (size_t)r * cols;
    for (int c = 0; c < cols; c++)
      row[c] = row[c] < lo ? lo : row[c];
  }
}
