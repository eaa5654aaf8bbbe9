/* class: gather — sparse matrix times vector in CSR form: row bounds and columns come from arrays.
 * t2c: description y[i] = sum over k in row_ptr[i] .. row_ptr[i+1]-1 of val[k] * x[col[k]]
 * t2c: size n MINI=20 SMALL=2000 MEDIUM=100000 LARGE=2000000 EXTRALARGE=8000000
 * t2c: size nnz MINI=100 SMALL=20000 MEDIUM=1000000 LARGE=20000000 EXTRALARGE=80000000
 * t2c: array row_ptr[n + 1] in
 * t2c: array col[nnz] in
 * t2c: array val[nnz] in
 * t2c: array x[n] in
 * t2c: array y[n] out
 * t2c: domain row_ptr offsets(0, nnz)
 * t2c: domain col integers(0, n - 1)
 */
void spmv_csr(int n, int nnz, const int *row_ptr, const int *col, const double *val, const double *x, double *y)
{
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; k++)
      s += val[k] * x[col[k]];
    y[i] = s;
  }
}
