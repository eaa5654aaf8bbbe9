"""The kernel's C ABI (t2c/ir/abi.py): what it prints, and that nothing else prints it."""
import ast
from pathlib import Path

from t2ctest import ROOT
from t2c.ir import Array, Kernel, Scalar, Size, abi

REF = ("double dot(int n, double a, double x[n], double y[n], double *s)\n{\n  double t = 0;\n"
       "  for (int i = 0; i < n; i++)\n    t += a * x[i] * y[i];\n  *s = t;\n  return t;\n}\n")


def dot() -> Kernel:
    """Every kind of parameter: a size, an input scalar, arrays (one 0-d), a returned scalar."""
    return Kernel(name="dot", params=("n", "a", "x", "y", "s"), sizes=(Size("n", (("MINI", 8),)),),
                  scalars=(Scalar("a", "float"), Scalar("r", "double", "out")),
                  arrays=(Array("x", "double", ("n",), "in"), Array("y", "double", ("n", "n + 1"), "inout"),
                          Array("s", "double", (), "out")),
                  reference=REF)


def test_parameters_and_declarations():
    k = dot()
    assert [(p.name, p.ctype, p.pointer) for p in abi.params(k)] == [
        ("n", "int", False), ("a", "float", False), ("x", "double", True), ("y", "double", True),
        ("s", "double", True)]
    assert abi.declaration(k, "_device") == \
        'extern "C" double dot_device(int n, float a, double *x, double *y, double *s);'
    assert abi.head(k) == 'extern "C" double dot(int n, float a, double *x, double *y, double *s)'
    assert str(abi.Param("x", "float", pointer=True, const=True, restrict=True)) == "const float *__restrict__ x"
    assert abi.call(k, "_device", lambda a: f"d_{a.name}") == "dot_device(n, a, d_x, d_y, d_s)"


def test_counts_and_bytes():
    k = dot()
    assert abi.count(k.array("y").shape) == "(size_t)(n) * (size_t)(n + 1)"
    assert abi.array_bytes(k.array("s")) == "1 * sizeof(double)"      # a 0-d array: one element
    assert abi.nbytes("float", "cells") == "cells * sizeof(float)"


def test_dropin_copies_back_only_what_is_written():
    lines = abi.dropin(dot())
    assert lines[0] == abi.head(dot()) and lines[-2:] == ["  return result;", "}"]
    assert "  const double result = dot_device(n, a, dev_x, dev_y, dev_s);" in lines
    back = [line for line in lines if "cudaMemcpyDeviceToHost" in line]
    assert back == ["  cudaMemcpy(y, dev_y, bytes_y, cudaMemcpyDeviceToHost);",
                    "  cudaMemcpy(s, dev_s, bytes_s, cudaMemcpyDeviceToHost);"]
    assert sum("cudaFree(" in line for line in lines) == 3


def test_dropin_copies_in_only_what_is_read():
    """An `out` array (written whole before any read) is not copied in: its cells start as
    all-ones bytes, so a cell left unwritten is NaN or -1, not an earlier call's value."""
    lines = abi.dropin(dot())
    into = [line for line in lines if "cudaMemcpyHostToDevice" in line]
    assert into == ["  cudaMemcpy(dev_x, x, bytes_x, cudaMemcpyHostToDevice);",
                    "  cudaMemcpy(dev_y, y, bytes_y, cudaMemcpyHostToDevice);"]
    assert any(line.startswith("  cudaMemset(dev_s, 0xff, bytes_s);") for line in lines)


def abi_prints(package: Path) -> list[str]:
    """`file:line: text` for each f-string outside ir/abi.py that prints part of the ABI itself: an
    `extern "C"` declaration over the kernel's types, a call or definition of `{NAME}_device`, an
    array's element count built from its shape (`(size_t)({e})`) or a byte count (`* sizeof({T})`)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        if path.relative_to(package).as_posix() == "ir/abi.py":
            continue
        strings = [n for n in ast.walk(ast.parse(path.read_text(), str(path))) if isinstance(n, ast.JoinedStr)]
        for node in sorted(strings, key=lambda n: (n.lineno, n.col_offset)):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            if ('extern "C" {}' in text or "{}_device(" in text or text == "(size_t)({})"
                    or "* sizeof({})" in text):
                found.append(f"{path.relative_to(package.parent)}:{node.lineno}: {text}")
    return found


def test_only_the_abi_module_prints_the_abi():
    found = abi_prints(ROOT / "t2c")
    assert not found, "print the ABI through t2c/ir/abi.py (params, head, call, count, nbytes, dropin):\n" \
        + "\n".join(found)


def test_abi_prints_are_found(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "ir").mkdir(parents=True)
    (pkg / "ir" / "abi.py").write_text("f'extern \"C\" {ret} {name}_device({params})'\n")
    (pkg / "gen.py").write_text(
        "a = f'extern \"C\" {ret} {k.name}({params})'\n"
        "b = f'  {k.name}_device({args});'\n"
        "c = ' * '.join(f'(size_t)({e})' for e in shape)\n"
        "d = f'{count} * sizeof({a.dtype})'\n"
        "e = f'sizeof({s.dtype})'   # a scalar's bytes in a file protocol: not an array's\n"
        "f = f'(({d}) > 0 ? (size_t)({d}) : 0)'   # an iteration count\n")
    assert [line.split(": ")[0] for line in abi_prints(pkg)] == ["pkg/gen.py:1", "pkg/gen.py:2", "pkg/gen.py:3",
                                                                 "pkg/gen.py:4"]


USER_TYPES = """/* t2c: size n
 * t2c: size m
 * t2c: array x[n][m] inout */
#include <stddef.h>
typedef unsigned int count_t;
void scale(size_t n, count_t m, const float *w, float *x)
{
  for (size_t i = 0; i < n; i++)
    for (count_t j = 0; j < m; j++)
      x[i * m + j] *= w[j];
}
"""


def test_the_dropin_declares_sizes_as_the_user_does(tmp_path):
    """A program that declares its kernel with `size_t n` and `const float *w` links the drop-in in
    place of its own definition, so the drop-in must declare the same function: C++ refuses
    `extern "C"` twice with other parameter types. NAME_device keeps `int` sizes and plain
    pointers (t2c's own entry point)."""
    import shutil
    import subprocess

    import pytest

    from t2c.frontends.c import read_c
    from t2c.generators import generate
    src = tmp_path / "scale.c"
    src.write_text(USER_TYPES)
    k = read_c(src)
    assert [s.ctype for s in k.sizes] == ["size_t", "unsigned int"]
    assert abi.head(k) == 'extern "C" void scale(size_t n, unsigned int m, const float *w, float *x)'
    assert abi.head(k, "_device") == 'extern "C" void scale_device(int n, int m, float *w, float *x)'
    if shutil.which("nvcc") is None:
        pytest.skip("needs nvcc for the compile check")
    cu = tmp_path / "scale.cu"
    cu.write_text('#include <stddef.h>\nextern "C" void scale(size_t n, unsigned int m, const float *w, float *x);\n'
                  + generate(k, "poly"))
    done = subprocess.run(["nvcc", "-arch=sm_90", "-c", str(cu), "-o", str(tmp_path / "scale.o")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_size_t_that_bounds_nothing_is_a_value_of_its_own_type(tmp_path):
    """size_t as a value (a seed, a scale), not a size: an unsigned long scalar, which both
    entry points take as such (an unsigned 64-bit value, never narrowed to an int)."""
    from t2c.frontends.c import read_c
    from t2c.ir import abi
    src = tmp_path / "seed.c"
    src.write_text("/* t2c: size n */\n#include <stddef.h>\nvoid f(int n, size_t seed, float *x)\n{\n"
                   "  for (int i = 0; i < n; i++)\n    x[i] = x[i] * seed;\n}\n")
    k = read_c(src)
    assert [(s.name, s.dtype) for s in k.scalars] == [("seed", "unsigned long")]
    assert abi.declaration(k, "_device") == 'extern "C" void f_device(int n, unsigned long seed, float *x);'


def test_a_cell_the_device_code_leaves_unwritten_shows_through_the_dropin(tmp_path):
    """Through the drop-in on the emu: an `out` array's cell that NAME_device never writes comes
    back NaN, not the caller's value (nothing is copied in), and an `inout` array keeps it."""
    import math
    import numpy as np
    from t2c.frontends.c import read_c
    from t2c.verify.harness import build_candidate, run_candidate
    src = tmp_path / "twice.c"
    src.write_text("void twice(int n, const double x[n], double y[n], double z[n])\n{\n"
                   "  for (int i = 0; i < n; i++) {\n    y[i] = 2 * x[i];\n    z[i] += x[i];\n  }\n}\n")
    k = read_c(src)
    assert [a.intent for a in k.arrays] == ["in", "out", "inout"]
    text = "\n".join(["#include <cuda_runtime.h>",
                      "__global__ void skip_first(int n, double *x, double *y, double *z)",
                      "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= 1 && i < n) { y[i] = 2 * x[i]; z[i] += x[i]; } }",
                      abi.head(k, "_device"), "{ skip_first<<<1, 64>>>(n, x, y, z); }", *abi.dropin(k)])
    x = np.arange(8, dtype=np.float64)
    run = run_candidate(k, build_candidate(k, text, "emu"), {"n": 8},
                        {"x": x, "y": np.full(8, 5.0), "z": np.full(8, 7.0)}, mode="host", timeout=120)
    assert run.process.ok, run.process.stderr[-2000:]
    assert math.isnan(run.outputs["y"][0]) and run.outputs["y"][1:].tolist() == (2 * x[1:]).tolist()
    assert run.outputs["z"].tolist() == [7.0, *(7.0 + x[1:]).tolist()]
