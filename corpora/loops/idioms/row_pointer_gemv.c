/* class: affine — a matrix-vector product over a flat matrix through a row pointer, float
 * storage summed in double (frontend: `row[c]` is read as A[r * cols + c]).
 * t2c: size rows MINI=10 SMALL=300 MEDIUM=2000 LARGE=8000 EXTRALARGE=16000
 * t2c: size cols MINI=12 SMALL=400 MEDIUM=2000 LARGE=8000 EXTRALARGE=16000
 * t2c: array A[rows][cols] in
 * t2c: array x[cols] in
 * t2c: array y[rows] out
 * t2c: domain A uniform(-1, 1)
 * t2c: domain x uniform(-1, 1)
 */
void row_pointer_gemv(int rows, int cols, const float *A, const float *x, float *y)
{
  for (int r = 0; r < rows; r++) {
    const float *row = A + r * cols;
    double acc = 0.0;
    for (int c = 0; c < cols; c++)
      acc += row[c] * x[c];
    y[r] = (float)acc;
  }
}
