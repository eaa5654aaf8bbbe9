"""Row lengths derived from the sizes (`const int ow = w - kw + 1; out[r * ow + c]`, as valid
convolutions, differences and crops write their outputs): the pointer's rows are read from the
subscripts though no single size multiplies the loop variables, each extent that may be negative
for some sizes becomes a constraint (the verifier's sizes keep it >= 0), as it does for an
extent the user declares. Read without annotations; the ladder accepts poly's candidate on the emu."""
import pytest

from t2ctest import accepted_on_emu, c_kernel
from t2c.errors import UserError
from t2c.generators.poly import generate

CONV2D = """\
void conv2d(int h, int w, int kh, int kw, const double *in, const double *f, double *out)
{
  const int oh = h - kh + 1, ow = w - kw + 1;
  for (int r = 0; r < oh; r++)
    for (int c = 0; c < ow; c++) {
      double acc = 0;
      for (int a = 0; a < kh; a++)
        for (int b = 0; b < kw; b++)
          acc += in[(r + a) * w + c + b] * f[a * kw + b];
      out[r * ow + c] = acc;
    }
}
"""

BATCHED = """\
void conv_batch(int nb, int h, int w, int kh, int kw, const float *in, const float *f, float *out)
{
  int oh = h - kh + 1;
  int ow = w - kw + 1;
  for (int b = 0; b < nb; b++)
    for (int r = 0; r < oh; r++)
      for (int c = 0; c < ow; c++) {
        float acc = 0.0f;
        for (int i = 0; i < kh; i++)
          for (int j = 0; j < kw; j++)
            acc += in[(b * h + r + i) * w + c + j] * f[i * kw + j];
        out[(b * oh + r) * ow + c] = acc;
      }
}
"""

DIFFS = """\
void row_diffs(int rows, int cols, const double *x, double *d)
{
  int m = cols - 1;
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < m; j++)
      d[i * m + j] = x[i * cols + j + 1] - x[i * cols + j];
}
"""


@pytest.mark.parametrize("text, name, shape, constraints", [
    (CONV2D, "out", ("h - kh + 1", "-kw + w + 1"), {"h >= kh - 1", "w >= kw - 1"}),
    (BATCHED, "out", ("nb", "h - kh + 1", "-kw + w + 1"), {"h >= kh - 1", "w >= kw - 1"}),
    (DIFFS, "d", ("rows", "cols - 1"), set()),          # cols >= 1 already keeps cols - 1 >= 0
])
def test_rows_of_a_length_derived_from_the_sizes(text, name, shape, constraints, tmp_path):
    k = c_kernel(tmp_path, text)
    assert k.array(name).shape == shape
    assert constraints <= set(k.constraints)
    accepted_on_emu(k, generate(k))


def test_a_declared_extent_that_may_be_negative_is_a_constraint(tmp_path):
    # before, the verifier drew kh > h + 1 and failed making the array ("negative dimensions")
    k = c_kernel(tmp_path, "// t2c: array out[h - kh + 1][w - kw + 1]\n" + CONV2D)
    assert k.array("out").shape == ("h - kh + 1", "w - kw + 1")
    assert {"h >= kh - 1", "w >= kw - 1"} <= set(k.constraints)
    accepted_on_emu(k, generate(k))


def test_a_row_length_divided_by_a_size_is_refused_at_its_line(tmp_path):
    # a pooling window that is also its stride: (h - k) / k divides by a size, which no extent reads
    with pytest.raises(UserError) as e:
        c_kernel(tmp_path, """\
void pool(int h, int w, int k, const float *in, float *out)
{
  int oh = (h - k) / k + 1, ow = (w - k) / k + 1;
  for (int r = 0; r < oh; r++)
    for (int c = 0; c < ow; c++)
      out[r * ow + c] = in[(r * k) * w + c * k];
}
""")
    assert e.value.line == 6 and "cannot tell the extent of pointer parameter" in str(e.value)
    assert "t2c: array" in (e.value.hint or "")
