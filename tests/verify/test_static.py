"""The static rung: correct candidates pass; each forbidden capability is named with file:line."""
import pytest

from t2ctest import POLYBENCH, ROOT
from t2c.frontends.c import read_c
from t2c.verify.static import check_static

GEMM = read_c(POLYBENCH / "linear-algebra/blas/gemm/gemm.c")
GOOD = (ROOT / "tests/candidates/kernel_gemm.cu").read_text()


@pytest.mark.parametrize("cu", sorted((ROOT / "tests/candidates").glob("*.cu")), ids=lambda p: p.name)
def test_hand_candidates_pass(cu):
    name = cu.stem.removeprefix("kernel_").replace("_", "-")
    src = next(p for p in (POLYBENCH).rglob("*.c") if p.parent.name == name and p.stem == name)
    r = check_static(read_c(src), cu.read_text(), cu.name)
    assert r.ok, r.summary()


@pytest.mark.parametrize("snippet, rule", [
    ('FILE *f = fopen("x", "r");', "file"),
    ('const char *s = getenv("HOME");', "environment"),
    ("system(\"ls\");", "process"),
    ("exit(0);", "process"),
    ("auto t = std::chrono::steady_clock::now();", "timer"),
    ("long t = time(0);", "timer"),
    ('printf("%d", 1);', "output"),
    ("cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);", "side stream"),
    ("std::thread t([]{});", "thread"),
    ("cublasHandle_t h; cublasCreate(&h);", "library"),
    ("thrust::device_vector<double> v(3);", "library"),
])
def test_forbidden_calls_are_named(snippet, rule):
    src = GOOD.replace("  dim3 block(32, 8);", "  " + snippet + "\n  dim3 block(32, 8);", 1)
    r = check_static(GEMM, src, "cand.cu")
    assert not r.ok and r.findings[0].rule == rule, r.summary()
    assert r.reason.endswith(f"(cand.cu:{r.findings[0].line}:{r.findings[0].col})")


def test_local_variables_named_like_functions_are_fine():
    src = GOOD.replace("  double acc = C[i * nj + j] * beta;",
                       "  int time = 3, clock = time + 1;\n  double acc = C[i * nj + j] * beta * (clock - time);")
    assert check_static(GEMM, src).ok


def test_abi_problems():
    assert "no definition of 'kernel_gemm_device'" in check_static(
        GEMM, GOOD.replace("kernel_gemm_device", "other_name")).reason
    assert "extern" in check_static(GEMM, GOOD.replace('extern "C" ', "")).reason
    r = check_static(GEMM, GOOD.replace("double beta, double *C,\n                                   double *A",
                                        "double beta, float *C,\n                                   double *A"))
    assert "parameter 6 'C'" in r.reason and "float *" in r.reason
    r = check_static(GEMM, GOOD.replace("  gemm_kernel<<<grid, block>>>",
                                        "  double *h = (double *)malloc(8);\n  gemm_kernel<<<grid, block>>>"))
    assert r.findings[0].rule == "abi" and "allocate" in r.reason


def test_device_entry_scratch_must_be_given_back():
    """NAME_device may take scratch for the call (t2c's copies of input arrays) from the
    stream-ordered pool or by cudaMalloc, only if it gives it back (cudaFreeAsync, cudaFree) in
    the same function."""
    take = "  double *tmp = NULL;\n  cudaMallocAsync((void **)&tmp, 64, 0);\n"
    src = GOOD.replace("  gemm_kernel<<<grid, block>>>", take + "  gemm_kernel<<<grid, block>>>", 1)
    r = check_static(GEMM, src)
    assert r.findings[0].rule == "abi" and "cudaFreeAsync(tmp" in r.reason, r.summary()
    given = src.replace("  gemm_kernel<<<grid, block>>>", "  cudaFreeAsync(tmp, 0);\n  gemm_kernel<<<grid, block>>>", 1)
    assert check_static(GEMM, given).ok, check_static(GEMM, given).summary()
    r = check_static(GEMM, given.replace("cudaMallocAsync((void **)&tmp, 64, 0)", "cudaMalloc((void **)&tmp, 64)"))
    assert r.findings[0].rule == "abi" and "cudaFree(tmp" in r.reason, r.summary()   # not the pool's counterpart
    synced = given.replace("cudaMallocAsync((void **)&tmp, 64, 0)", "cudaMalloc((void **)&tmp, 64)") \
        .replace("cudaFreeAsync(tmp, 0)", "cudaFree(tmp)")
    assert check_static(GEMM, synced).ok, check_static(GEMM, synced).summary()
    r = check_static(GEMM, synced.replace("double *tmp = NULL;", "float *h = NULL;\n  cudaMallocHost((void **)&h, 8);\n  double *tmp = NULL;"))
    assert r.findings[0].rule == "abi" and "must not allocate" in r.reason


def test_includes_and_macros():
    assert check_static(GEMM, '#include "mine.h"\n' + GOOD).findings[0].rule == "include"
    assert check_static(GEMM, "#include <fstream>\n" + GOOD).findings[0].rule == "include"
    assert check_static(GEMM, "#include <cmath>\n#include <cooperative_groups.h>\n" + GOOD).ok
    assert check_static(GEMM, "#define P(a, b) a##b\n" + GOOD).findings[0].rule == "macro"
    assert check_static(GEMM, "#define OPEN fopen\n" + GOOD).findings[0].rule == "file"
