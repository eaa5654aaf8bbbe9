/* Row softmax with the max shift: the row's maximum is subtracted before exp, which changes
   no result (softmax is shift-invariant) but keeps exp from overflowing.  A mutant that
   computes another shift (a max loop cut short) is therefore equivalent to the reference.
   Class: affine. */
// t2c: size rows MINI=8 SMALL=64 MEDIUM=512 LARGE=4096 EXTRALARGE=16384
// t2c: size cols MINI=16 SMALL=128 MEDIUM=1024 LARGE=4096 EXTRALARGE=8192
// t2c: domain x uniform(-8, 8)
void softmax_rows(int rows, int cols, const double x[rows][cols], double y[rows][cols])
{
    for (int i = 0; i < rows; i++) {
        double m = x[i][0];
        for (int j = 1; j < cols; j++)
            if (x[i][j] > m)
                m = x[i][j];
        double s = 0.0;
        for (int j = 0; j < cols; j++) {
            y[i][j] = exp(x[i][j] - m);
            s += y[i][j];
        }
        for (int j = 0; j < cols; j++)
            y[i][j] = y[i][j] / s;
    }
}
