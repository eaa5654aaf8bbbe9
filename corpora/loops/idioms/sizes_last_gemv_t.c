/* class: affine — the sizes after the arrays they size, as C libraries order parameters
 * (`f(A, x, y, rows, cols)`): a transposed matrix-vector product y = A^T x over a flat row-major
 * matrix. C knows no rows or cols where x and y are declared, so the IS's reference keeps them
 * as pointers (frontend) and their extents in the IS.
 * t2c: size rows MINI=11 SMALL=300 MEDIUM=2000 LARGE=8000 EXTRALARGE=16000
 * t2c: size cols MINI=13 SMALL=200 MEDIUM=2000 LARGE=8000 EXTRALARGE=16000
 */
void sizes_last_gemv_t(const double *A, const double *x, double *y, int rows, int cols)
{
  for (int j = 0; j < cols; j++) {
    double s = 0.0;
    for (int i = 0; i < rows; i++)
      s += A[i * cols + j] * x[i];
    y[j] = s;
  }
}
