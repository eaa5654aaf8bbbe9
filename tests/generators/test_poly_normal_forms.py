"""poly on everyday C that reads as a form it knows (issue #35, defects 5 and 6), end to end.

Flat subscripts of annotated pointers (the docs' own example, the samples) plan a grid, not one
thread: read from the plan.  Data-dependent writes, spelled through the array or through a local,
end the same way: a one-thread candidate that the ladder accepts; additions into such cells are
atomic updates on a grid.  Each candidate goes through
`t2c gen` and `t2c verify --backend emu --dataset MINI`.
"""
import re

import pytest
from click.testing import CliRunner

from t2ctest import ROOT
from t2c.analysis import NotAffine, analyze
from t2c.cli import main
from t2c.frontends.c import read_c
from t2c.generators.poly.lower import planned
from t2c.generators.poly.options import DEFAULT

SAMPLES = ROOT / "tests" / "frontend" / "samples"


def _docs_example() -> str:
    """The flat-pointer example of docs/annotations.md, as the docs show it."""
    text = (ROOT / "docs" / "annotations.md").read_text()
    return re.search(r"```c\n(.*?)```", text, re.S).group(1)


FLAT = {
    "docs_colsum.c": _docs_example,
    "annotated_pointer.c": lambda: (SAMPLES / "annotated_pointer.c").read_text(),
    "matvec_flat.c": lambda: "/* t2c: array a[n][m] in */\n" + (SAMPLES / "matvec_flat.c").read_text(),
}


@pytest.fixture(scope="module")
def emu_available():
    try:
        from t2c.runtime.emu import build_emu  # noqa: F401
    except ImportError:
        pytest.skip("the emu backend is not available")


def _gen_and_verify(path, tmp_path) -> str:
    out = tmp_path / (path.stem + ".cu")
    runner = CliRunner()
    res = runner.invoke(main, ["gen", str(path), "-o", str(out)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(main, ["verify", str(path), "--candidate", str(out), "--backend", "emu",
                               "--dataset", "MINI"])
    assert res.exit_code == 0 and "verdict: ACCEPTED" in res.output, res.output
    return out.read_text()


@pytest.mark.parametrize("name", sorted(FLAT))
def test_flat_subscripts_of_annotated_pointers_plan_a_grid(name, tmp_path, emu_available):
    path = tmp_path / name
    path.write_text(FLAT[name]())
    plan = planned(analyze(read_c(path)), DEFAULT)
    assert plan.launches and all(launch.grid for launch in plan.launches), \
        [(launch.name, [l.var for l in launch.grid]) for launch in plan.launches]
    text = _gen_and_verify(path, tmp_path)
    assert "(i * m) + j" in text                   # the drop-in still indexes the flat pointer


SPELLINGS = {
    "scatter_direct.c": "a[ip[i]] = x[i];",
    "scatter_local.c": "{ int k = ip[i]; a[k] = x[i]; }",
}
SCATTER = """\
// t2c: array ip[n] in
// t2c: domain ip integers(0, 7)
// t2c: array a[8] inout
void scatter(int n, const int *ip, const double *x, double *a)
{
  for (int i = 0; i < n; i++)
    %s
}
"""


def test_both_spellings_of_a_data_dependent_write_end_alike(tmp_path, emu_available):
    reasons = {}
    for name, body in SPELLINGS.items():
        path = tmp_path / name
        path.write_text(SCATTER % body)
        with pytest.raises(NotAffine) as e:           # poly's answer: one thread, this reason
            analyze(read_c(path))
        reasons[name] = re.sub(r"^line \d+: ", "", str(e.value))
        text = _gen_and_verify(path, tmp_path)
        assert "runs in one GPU thread" in text and reasons[name] in text
    assert len(set(reasons.values())) == 1 and "data-dependent write" in reasons["scatter_direct.c"]


HISTOGRAM = (ROOT / "tests/analysis/samples/histogram.c").read_text()


def test_a_histogram_adds_atomically_on_a_grid(tmp_path, emu_available):
    path = tmp_path / "histogram.c"
    path.write_text(HISTOGRAM)
    plan = planned(analyze(read_c(path)), DEFAULT)
    assert plan.launches and all(launch.grid for launch in plan.launches)
    text = _gen_and_verify(path, tmp_path)
    assert "atomicAdd(&hist[b_1], 1);" in text and "//   why:" not in text


def test_a_local_named_t_gets_a_name_its_device_copy_can_have(tmp_path, emu_available):
    """A local array `t` kept between launches was printed `__device__ double *dev_t;`, a type of
    <sys/types.h>: `t2c gen` ended in an internal error.  Such a local gets a fresh name."""
    path = tmp_path / "tl.c"
    path.write_text("/* t2c: size n MINI=8\n * t2c: array x[n] in\n * t2c: array y[n] out */\n"
                    "void tl(int n, const double *x, double *y)\n{\n  double t[n];\n"
                    "  for (int i = 0; i < n; i++)\n    t[i] = 2.0 * x[i];\n"
                    "  for (int i = 0; i < n; i++)\n    y[i] = t[n - 1 - i];\n}\n")
    text = _gen_and_verify(path, tmp_path)
    assert "__device__ double *dev_t_1;" in text and "dev_t;" not in text
