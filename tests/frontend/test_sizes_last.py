"""Sizes after the arrays they size, as C libraries order parameters (`f(double *a, int n)`).

C knows no n where a is declared, so the IS's reference keeps such pointers as they are (a
VLA type `double a[n]` there does not compile): the extents stay in the IS. Before, every such
kernel stopped as an internal error at its first reference build.
"""
import os
import subprocess
import sys

from t2ctest import ROOT, accepted_on_emu, c_kernel
from t2c.generators.poly import generate
from t2c.verify.reference import run_reference
from t2c.verify.synth import smoke_points

SCALE = """\
void scale_last(double *a, const double *b, int n)
{
  for (int i = 0; i < n; i++)
    a[i] = 2.0 * b[i];
}
"""

#: a size inferred from an extent (`n * incx`) with no presets while n has them: the kernel has
#: no dataset in common, so the batch's reference check runs at its smallest sizes.
STRIDED = """\
/* t2c: size n MINI=50 SMALL=500 MEDIUM=5000 LARGE=500000 EXTRALARGE=5000000 */
/* t2c: domain incx integers(1, 4) */
/* t2c: array x[n * incx] in */
void daxpy_inc(int n, double a, const double *x, int incx, double *y)
{
  for (int i = 0; i < n; i++)
    y[i] += a * x[i * incx];
}
"""


def test_a_pointer_before_its_size_stays_a_pointer_and_runs(tmp_path):
    k = c_kernel(tmp_path, SCALE)
    assert k.reference.startswith("void scale_last(double *a, const double *b, int n)")
    assert [a.shape for a in k.arrays] == [("n",), ("n",)]
    run = run_reference(k, {"n": 5}, {"a": [0.0] * 5, "b": [1.0, 2, 3, 4, 5]})
    assert list(run.outputs["a"]) == [2.0, 4, 6, 8, 10]
    source = generate(k)
    assert "one GPU thread" not in source.split("#include")[0]      # parallel, not the fallback
    accepted_on_emu(k, source)


def test_the_corpus_kernel_with_sizes_last_reads_back_the_same(tmp_path):
    """`t2c is --as-c` prints the IS as C; reading that back gives the same IS."""
    path = ROOT / "corpora/loops/idioms/sizes_last_gemv_t.c"
    k = c_kernel(tmp_path, path.read_text(), "sizes_last_gemv_t")
    as_c = subprocess.run([sys.executable, "-m", "t2c.cli", "is", str(path), "--as-c"], capture_output=True,
                          text=True, check=True, cwd=ROOT).stdout
    assert c_kernel(tmp_path, as_c, "again").key() == k.key()
    accepted_on_emu(k, generate(k))


def test_a_batch_runs_a_kernel_whose_sizes_share_no_dataset(tmp_path):
    """The reference check runs at the smallest sizes (no dataset gives every size a value); the
    full rung draws its sizes (synth.full_dataset). Before: an internal error at the reference."""
    (tmp_path / "strided.c").write_text(STRIDED)
    k = c_kernel(tmp_path, STRIDED, "strided")
    assert smoke_points(k)[0][1] == {"n": 1, "incx": 1}
    r = subprocess.run([sys.executable, "-m", "t2c.cli", "batch", str(tmp_path / "strided.c"), "--backend", "emu",
                        "--dataset", "MINI", "--report-dir", str(tmp_path / "rep")],
                       capture_output=True, text=True, cwd=tmp_path,
                       env={**os.environ, "PYTHONPATH": str(ROOT), "T2C_CACHE_DIR": str(tmp_path / "c")})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "strided:reference" in r.stderr and "reference runs at {'n': 1, 'incx': 1}" in r.stderr
