"""The PolyBench corpus: builds everywhere it must, runs with finite dumps, computes the math."""
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from t2ctest import POLYBENCH, corpus_sources

UTIL = POLYBENCH / "utilities"
DATASETS = ["MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE"]
TYPES = ["INT", "FLOAT", "DOUBLE"]
ALL_30 = {"correlation", "covariance", "gemm", "gemver", "gesummv", "symm", "syr2k", "syrk", "trmm",
          "2mm", "3mm", "atax", "bicg", "doitgen", "mvt", "cholesky", "durbin", "gramschmidt", "lu",
          "ludcmp", "trisolv", "deriche", "floyd-warshall", "nussinov", "adi", "fdtd-2d", "heat-3d",
          "jacobi-1d", "jacobi-2d", "seidel-2d"}


def gcc(src: Path, out: Path, *flags) -> subprocess.CompletedProcess:
    cmd = ["gcc", "-O2", "-Wall", "-Werror", "-std=c99", f"-I{UTIL}", *flags, str(src),
           str(UTIL / "polybench.c"), "-lm", "-o", str(out)]
    return subprocess.run(cmd, capture_output=True, text=True)


def test_benchmark_list_has_all_30_in_published_layout():
    sources = corpus_sources()
    assert {s.stem for s in sources} == ALL_30
    for s in sources:
        assert s.exists() and s.with_suffix(".h").exists(), s
        assert s.parent.name == s.stem
        text = s.read_text()
        assert re.search(r"#pragma scop.*#pragma endscop", text, re.S), s
        assert "kernel_" + s.stem.replace("-", "_") in text, s


@pytest.mark.full
def test_every_kernel_builds_at_every_dataset_and_type(tmp_path):
    jobs = [(s, d, t) for s in corpus_sources() for d in DATASETS for t in TYPES]

    def build(job):
        s, d, t = job
        r = gcc(s, tmp_path / f"{s.stem}_{d}_{t}", f"-D{d}_DATASET", f"-DDATA_TYPE_IS_{t}")
        return job, r

    with ThreadPoolExecutor(4) as pool:
        failures = [(job, r.stderr[:300]) for job, r in pool.map(build, jobs) if r.returncode]
    assert not failures, failures[:3]


def run_dump(src: Path, dataset: str, tmp: Path, *flags) -> dict[str, np.ndarray]:
    exe = tmp / f"{src.stem}_{dataset}{len(flags)}"
    r = gcc(src, exe, f"-D{dataset}_DATASET", "-DPOLYBENCH_DUMP_ARRAYS", *flags)
    assert r.returncode == 0, r.stderr
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0
    assert p.stderr.startswith("==BEGIN DUMP_ARRAYS==\n") and p.stderr.rstrip().endswith("==END   DUMP_ARRAYS==")
    dumps = re.findall(r"begin dump: (\S+)(.*?)end   dump: \1", p.stderr, re.S)
    assert dumps
    return {name: np.array([float(v) for v in body.split()]) for name, body in dumps}


@pytest.mark.slow
@pytest.mark.parametrize("dataset", ["MINI", "SMALL", "MEDIUM"])
def test_every_kernel_runs_and_dumps_finite_values(dataset, tmp_path):
    def one(src):
        return src.stem, run_dump(src, dataset, tmp_path)

    with ThreadPoolExecutor(2) as pool:
        for name, dumps in pool.map(one, corpus_sources()):
            for arr, values in dumps.items():
                assert np.isfinite(values).all(), (name, arr)
                assert np.any(values != 0), (name, arr)


@pytest.mark.slow
@pytest.mark.parametrize("flags", [
    ("-DPOLYBENCH_USE_C99_PROTO", "-DPOLYBENCH_USE_RESTRICT", "-DPOLYBENCH_USE_SCALAR_LB"),
    pytest.param(("-DPOLYBENCH_STACK_ARRAYS", "-DPOLYBENCH_PADDING_FACTOR=3"), marks=pytest.mark.full),
], ids=["c99-restrict-scalar-lb", "stack-padded"])
def test_published_build_flags_give_the_same_dumps(flags, tmp_path):
    """The published header's options change how arrays and bounds are spelled, never the result."""
    def one(src):
        return src.stem, run_dump(src, "MINI", tmp_path), run_dump(src, "MINI", tmp_path, *flags)

    with ThreadPoolExecutor(2) as pool:
        for name, plain, flagged in pool.map(one, corpus_sources()):
            assert plain.keys() == flagged.keys(), name
            for arr in plain:
                np.testing.assert_array_equal(plain[arr], flagged[arr], err_msg=f"{name} {arr}")


def test_polybench_time_prints_seconds(tmp_path):
    src = POLYBENCH / "linear-algebra/blas/gemm/gemm.c"
    assert gcc(src, tmp_path / "g", "-DMINI_DATASET", "-DPOLYBENCH_TIME").returncode == 0
    out = subprocess.run([str(tmp_path / "g")], capture_output=True, text=True).stdout
    assert re.fullmatch(r"\d+\.\d{6}\n", out)


def test_size_macros_override_with_D(tmp_path):
    src = POLYBENCH / "linear-algebra/blas/gemm/gemm.c"
    assert gcc(src, tmp_path / "g", "-DNI=3", "-DNJ=4", "-DNK=5", "-DPOLYBENCH_DUMP_ARRAYS").returncode == 0
    err = subprocess.run([str(tmp_path / "g")], capture_output=True, text=True).stderr
    assert len(re.search(r"begin dump: C(.*)end", err, re.S).group(1).split()) == 12


# -- hand-computed MINI results: numpy from the same definitions and initial data --------

def close(dump, expected):
    # The dump prints two decimals: allow the rounding of the last digit.
    np.testing.assert_allclose(dump, np.asarray(expected).ravel(), atol=0.0051, rtol=0)


def test_gemm_mini_by_hand(tmp_path):
    ni, nj, nk = 20, 25, 30
    i, j = np.meshgrid(np.arange(ni), np.arange(nj), indexing="ij")
    C = ((i * j + 1) % ni) / ni
    ia, ka = np.meshgrid(np.arange(ni), np.arange(nk), indexing="ij")
    A = (ia * (ka + 1) % nk) / nk
    kb, jb = np.meshgrid(np.arange(nk), np.arange(nj), indexing="ij")
    B = (kb * (jb + 2) % nj) / nj
    close(run_dump(POLYBENCH / "linear-algebra/blas/gemm/gemm.c", "MINI", tmp_path)["C"],
          1.5 * A @ B + 1.2 * C)


def test_atax_mini_by_hand(tmp_path):
    m, n = 38, 42
    x = 1 + np.arange(n) / n
    i, j = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
    A = ((i + j) % n) / (5 * m)
    close(run_dump(POLYBENCH / "linear-algebra/kernels/atax/atax.c", "MINI", tmp_path)["y"],
          A.T @ (A @ x))


def test_trisolv_mini_by_hand(tmp_path):
    n = 40
    b = np.arange(n, dtype=float)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    L = np.where(j <= i, (i + n - j + 1) * 2 / n, 0.0)
    x = np.zeros(n)
    for r in range(n):                         # forward substitution, written out
        x[r] = (b[r] - L[r, :r] @ x[:r]) / L[r, r]
    np.testing.assert_allclose(L @ x, b, rtol=1e-10, atol=1e-10)
    close(run_dump(POLYBENCH / "linear-algebra/solvers/trisolv/trisolv.c", "MINI", tmp_path)["x"], x)


def test_jacobi_1d_mini_by_hand(tmp_path):
    tsteps, n = 20, 30
    A = (np.arange(n) + 2.0) / n
    B = (np.arange(n) + 3.0) / n
    for _ in range(tsteps):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])
    close(run_dump(POLYBENCH / "stencils/jacobi-1d/jacobi-1d.c", "MINI", tmp_path)["A"], A)
