"""PolyBench/C as published, not only as our corpus writes it.

The corpus follows the published header (`_PB_N` is the runtime size unless
POLYBENCH_USE_SCALAR_LB); a suite with the opposite meaning, init functions and kernel loops
bounded by the dataset macros, the list at utilities/benchmark_list and C files that are no
kernel must all read the same way.  Variants are built in tmp_path from our own files.
"""
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from t2ctest import POLYBENCH
from t2c.engine.batch import discover, listed
from t2c.errors import UserError
from t2c.frontends.c import read_c
from t2c.verify.fidelity import check_fidelity
from t2c.verify.reference import original_inputs

#: One kernel per convention: macro-bounded init (correlation), a kernel loop bounded by a
#: macro (heat-3d), a kernel-local array sized by a macro (durbin), an init-local array (cholesky).
KERNELS = ("datamining/correlation", "stencils/heat-3d", "linear-algebra/solvers/durbin",
           "linear-algebra/solvers/cholesky", "linear-algebra/blas/gemm")

NOT_A_KERNEL = """\
/* A standalone program: its loop nest is in main, beside helpers; no kernel to read. */
#include <stdio.h>
#include <stdlib.h>

static int grid[64][64];

double now(void) { return 0.0; }

int ask(const char *prompt) { return 16; }

int main(int argc, char **argv)
{
  int size = ask("size: "), i, j;
#pragma scop
  for (i = 1; i < size; i++)
    for (j = 1; j < size; j++)
      grid[i][j] = grid[i - 1][j] + grid[i][j - 1] + 1;
#pragma endscop
  printf("%d %f\\n", grid[size - 1][size - 1], now());
  return 0;
}
"""


def suite(root: Path, loop_bound: str = "published", kernels=KERNELS, listing=True) -> Path:
    """A copy of some corpus kernels; `loop_bound="inverted"` swaps POLYBENCH_LOOP_BOUND's meaning."""
    shutil.copytree(POLYBENCH / "utilities", root / "utilities")
    for k in kernels:
        shutil.copytree(POLYBENCH / k, root / k)
    header = root / "utilities" / "polybench.h"
    text = header.read_text()
    if loop_bound == "inverted":
        text, n = re.subn(r"(#ifdef POLYBENCH_USE_SCALAR_LB\n#define POLYBENCH_LOOP_BOUND\(x, y\)) x\n"
                          r"#else\n(#define POLYBENCH_LOOP_BOUND\(x, y\)) y",
                          r"\1 y\n#else\n\2 x", text)
        assert n == 1
    header.write_text(text)
    (root / "utilities" / "benchmark_list").unlink()
    if listing:
        (root / "utilities" / "benchmark_list").write_text(
            "".join(f"./{k}/{Path(k).name}.c\n" for k in kernels[:-1]) + f"#./{kernels[-1]}/{Path(kernels[-1]).name}.c\n")
    (root / "medley" / "standalone").mkdir(parents=True)
    (root / "medley" / "standalone" / "Standalone.orig.c").write_text(NOT_A_KERNEL)
    return root


def _source(root: Path, k: str) -> Path:
    return root / k / f"{Path(k).name}.c"


def test_loop_bounds_are_the_runtime_sizes_under_both_header_meanings(tmp_path):
    published = suite(tmp_path / "published")
    inverted = suite(tmp_path / "inverted", "inverted")
    for k in KERNELS:
        a, b = read_c(_source(published, k)), read_c(_source(inverted, k))
        assert a.key() == b.key(), k
        assert a.key() == read_c(_source(POLYBENCH, k)).key(), k
        # No dataset constant (LARGE's 1000, 1200, 2000, 500 ...) left in the reference or init.
        for s in a.sizes:
            large = dict(s.presets)["LARGE"]
            assert not re.search(rf"\b{large}\b", a.reference + (a.init or "")), (k, s.name, large)
    gemm = read_c(_source(published, "linear-algebra/blas/gemm"))
    assert "i < ni" in gemm.reference and "k < nk" in gemm.reference
    heat = read_c(_source(published, "stencils/heat-3d"))
    assert "t <= tsteps" in heat.reference                # `t <= TSTEPS` in the source


@pytest.mark.parametrize("k", KERNELS[:4], ids=lambda k: Path(k).name)
def test_macro_bounded_init_and_kernel_follow_the_dataset(tmp_path, k):
    root = suite(tmp_path, "inverted")
    kernel = read_c(_source(root, k))
    for dataset in ("MINI", "SMALL"):
        sizes = kernel.dataset_sizes(dataset)
        inputs = original_inputs(kernel, sizes)            # no write past MINI's arrays
        assert all(v.size for v in inputs.values())
        fid = check_fidelity(kernel, _source(root, k), dataset)
        assert fid.ok, (dataset, fid.detail)


def test_the_list_at_utilities_and_files_that_are_no_kernel(tmp_path):
    root = suite(tmp_path)
    found = discover([root])                              # the list: in its order, `#` lines out
    assert found == [_source(root, k) for k in KERNELS[:-1]]
    assert listed(POLYBENCH) and len(listed(POLYBENCH)) == 30

    (root / "utilities" / "benchmark_list").write_text("./stencils/heat-3d/heat-3d.c\n./nowhere/x.c\n")
    with pytest.raises(UserError) as e:
        discover([root])
    assert e.value.line == 2 and e.value.file.endswith("utilities/benchmark_list")

    (root / "utilities" / "benchmark_list").unlink()     # no list: walk the folder, skip the program
    notes = []
    found = discover([root], note=notes.append)
    assert sorted(found) == sorted(_source(root, k) for k in KERNELS)
    assert len(notes) == 1 and "Standalone.orig.c" in notes[0] and "main" in notes[0]
    with pytest.raises(UserError, match="the #pragma scop region is in main"):
        read_c(root / "medley" / "standalone" / "Standalone.orig.c")


@pytest.mark.slow
def test_batch_on_a_suite_in_published_form(tmp_path):
    """`t2c batch FOLDER` on a folder laid out as published: the list's kernels, exit 0."""
    root = suite(tmp_path / "suite", kernels=("datamining/correlation", "stencils/heat-3d",
                                              "linear-algebra/blas/gemm"))
    env_cache = tmp_path / "cache"
    proc = subprocess.run([sys.executable, "-m", "t2c.cli", "batch", str(root), "--backend", "emu",
                           "--dataset", "MINI", "--report-dir", str(tmp_path / "report")],
                          capture_output=True, text=True, cwd=tmp_path,
                          env={**__import__("os").environ, "T2C_CACHE_DIR": str(env_cache)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 accepted of 2 kernels" in proc.stdout + proc.stderr
