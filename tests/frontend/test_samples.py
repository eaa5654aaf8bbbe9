"""The C frontend on plain C kernels: the IS it reads, its round trip, its reference.

For every file under samples/: `read_c` gives the expected sizes, scalars and
arrays (shape, dtype, intent); the printed reference file reads back to the same
key; and the host reference, run on synthesized inputs at small sizes, computes
what a numpy version of the same math computes.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from t2c.errors import UserError
from t2c.frontends.c import read_c, reference_file
from t2c.ir import ISError
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference

SAMPLES = Path(__file__).parent / "samples"
UNIFORM = ("uniform", -1.0, 1.0)
INTEGERS = ("integers", 0.0, 16.0)


def k_(name, params, sizes, scalars, arrays, domains, constraints=None, description="",
       function=None):
    """One expectation: sizes {name: presets}, scalars/arrays as tuples, domains
    {target: (kind, low, high)}; constraints default to `s >= 1` for every size."""
    return dict(name=name, params=tuple(params), sizes=sizes, scalars=tuple(scalars),
                arrays=tuple(arrays), domains=domains, function=function, description=description,
                constraints=tuple(constraints if constraints is not None
                                  else (f"{s} >= 1" for s in sizes)))


# file -> what read_c must give.  A key "file.c@fn" reads the file with --function fn.
EXPECT = {
    "axpy_pointers.c": k_(
        "axpy", ["n", "alpha", "x", "y"], {"n": ()},
        [("alpha", "double", "in")],
        [("x", "double", ("n",), "in"), ("y", "double", ("n",), "inout")],
        {"alpha": UNIFORM, "x": UNIFORM, "y": UNIFORM}),
    "matvec_flat.c": k_(
        "matvec", ["n", "m", "a", "x", "y"], {"n": (), "m": ()}, [],
        [("a", "float", ("n", "m"), "in"), ("x", "float", ("m",), "in"),   # rows of m (a[i*m + j])
         ("y", "float", ("n",), "out")],         # a[i*m + j] of an input orders nothing: the
        {"a": UNIFORM, "x": UNIFORM}),                # model proves every y[i] written, so out
    "annotated_pointer.c": k_(
        "scale_rows", ["n", "m", "a", "s"], {"n": (), "m": ()}, [],
        [("a", "double", ("n", "m"), "inout"), ("s", "double", ("n",), "in")],
        {"a": UNIFORM, "s": UNIFORM}),
    "prefix_sum_1d.c": k_(
        # y[i - 1] is read where only y[i] was written: conservatively inout
        "prefix_sum", ["n", "x", "y"], {"n": ()}, [],
        [("x", "int", ("n",), "in"), ("y", "int", ("n",), "inout")],
        {"x": INTEGERS, "y": INTEGERS}),
    "first_element_pointers.c": k_(
        "prefix_sum_ptr", ["n", "x", "y"], {"n": ()}, [],
        [("x", "int", ("n",), "in"), ("y", "int", ("n",), "inout")],
        {"x": INTEGERS, "y": INTEGERS}),
    "matmul_2d.c": k_(
        "gemm", ["ni", "nj", "nk", "alpha", "beta", "C", "A", "B"],
        {"ni": (), "nj": (), "nk": ()},
        [("alpha", "double", "in"), ("beta", "double", "in")],
        [("C", "double", ("ni", "nj"), "inout"), ("A", "double", ("ni", "nk"), "in"),
         ("B", "double", ("nk", "nj"), "in")],
        {"alpha": UNIFORM, "beta": UNIFORM, "C": UNIFORM, "A": UNIFORM, "B": UNIFORM}),
    "stencil_3d.c": k_(
        "stencil7", ["nz", "ny", "nx", "in", "out"], {"nz": (), "ny": (), "nx": ()}, [],
        # the boundary of out is never written: it keeps the caller's values (inout)
        [("in", "float", ("nz", "ny", "nx"), "in"), ("out", "float", ("nz", "ny", "nx"), "inout")],
        {"in": UNIFORM, "out": UNIFORM}),
    "channel_scale_4d.c": k_(
        "channel_affine", ["nb", "nc", "nh", "nw", "x", "gamma", "beta", "y"],
        {"nb": (), "nc": (), "nh": (), "nw": ()}, [],
        [("x", "float", ("nb", "nc", "nh", "nw"), "in"), ("gamma", "float", ("nc",), "in"),
         ("beta", "float", ("nc",), "in"), ("y", "float", ("nb", "nc", "nh", "nw"), "out")],
        {"x": UNIFORM, "gamma": UNIFORM, "beta": UNIFORM}),
    "dot_return.c": k_(
        "dot", ["n", "x", "y"], {"n": ()},
        [("return", "double", "out")],
        [("x", "double", ("n",), "in"), ("y", "double", ("n",), "in")],
        {"x": UNIFORM, "y": UNIFORM}),
    "sum_pointer.c": k_(
        "total", ["n", "x", "sum"], {"n": ()}, [],
        [("x", "float", ("n",), "in"), ("sum", "float", (), "out")],
        {"x": UNIFORM}),
    "triangular.c": k_(
        "lower_solve_update", ["n", "L", "b", "x", "S"], {"n": ()}, [],
        [("L", "double", ("n", "n"), "in"), ("b", "double", ("n",), "in"),
         ("x", "double", ("n",), "inout"), ("S", "double", ("n", "n"), "inout")],
        {"L": ("diagonally_dominant", None, None), "b": UNIFORM, "x": UNIFORM, "S": UNIFORM}),
    "smooth_interior.c": k_(
        # y is written at 1 .. n-2 only, so its inferred extent is n - 1
        "smooth", ["n", "x", "y"], {"n": ()}, [],
        # y[0] is never written: it keeps the caller's value (inout)
        [("x", "double", ("n",), "in"), ("y", "double", ("n - 1",), "inout")],
        {"x": UNIFORM, "y": UNIFORM}),
    "conditionals.c": k_(
        "clamp_relu", ["n", "lo", "hi", "x", "c", "r"], {"n": ()},
        [("lo", "float", "in"), ("hi", "float", "in")],
        # c is written inside if/else branches, not proven to cover every element: inout
        # (the safe side); r's one write is a ternary, unconditional: out
        [("x", "float", ("n",), "in"), ("c", "float", ("n",), "inout"),
         ("r", "float", ("n",), "out")],
        {"lo": UNIFORM, "hi": UNIFORM, "x": UNIFORM, "c": UNIFORM}),
    "math_calls.c": k_(
        "mathy", ["n", "x", "f", "out", "g"], {"n": ()}, [],
        [("x", "double", ("n",), "in"), ("f", "float", ("n",), "in"),
         ("out", "double", ("n",), "out"), ("g", "float", ("n",), "out")],
        {"x": UNIFORM, "f": UNIFORM}),
    "while_loop.c": k_(
        "isqrt_all", ["n", "x", "r"], {"n": ()}, [],
        # the while loop runs whole in each i (an opaque loop): every r[i] is written, so out
        [("x", "int", ("n",), "in"), ("r", "int", ("n",), "out")],
        {"x": INTEGERS}),
    "two_functions.c@scale": k_(
        "scale", ["n", "a", "x", "y"], {"n": ()}, [("a", "double", "in")],
        [("x", "double", ("n",), "in"), ("y", "double", ("n",), "out")],
        {"a": UNIFORM, "x": UNIFORM}, function="scale"),
    "two_functions.c@shift": k_(
        "shift", ["n", "a", "x", "y"], {"n": ()}, [("a", "double", "in")],
        [("x", "double", ("n",), "in"), ("y", "double", ("n",), "out")],
        {"a": UNIFORM, "x": UNIFORM}, function="shift"),
    "presets_domains.c": k_(
        "weighted_rows", ["n", "m", "k", "A", "w", "out"],
        {"n": (("MINI", 8), ("SMALL", 32), ("MEDIUM", 128)),
         "m": (("MINI", 4), ("SMALL", 16), ("MEDIUM", 64))},
        [("k", "int", "in")],      # an int that bounds no loop is a scalar, not a size
        [("A", "double", ("n", "n"), "in"), ("w", "double", ("n",), "in"),
         ("out", "double", ("n", "m"), "out")],
        {"k": ("integers", 1.0, 5.0), "A": ("spd", None, None), "w": ("uniform", 0.5, 2.0)},
        constraints=["n >= 2 && m >= 1"], description="Weighted row sums of an SPD matrix"),
}


def _file(key: str) -> Path:
    return SAMPLES / key.split("@")[0]


def _read(key: str):
    return read_c(_file(key), EXPECT[key]["function"])


# -- numpy versions of the same math: (inputs, sizes) -> expected outputs -------------------

def np_axpy(i, s):
    return {"y": i["alpha"] * i["x"] + i["y"]}


def np_matvec(i, s):
    a = i["a"].astype(np.float64).reshape(s["n"], s["m"])
    return {"y": a @ i["x"].astype(np.float64)}


def np_scale_rows(i, s):
    return {"a": i["a"] * i["s"][:, None]}


def np_prefix(i, s):
    return {"y": np.cumsum(i["x"]).astype(np.int32)}


def np_gemm(i, s):
    return {"C": i["beta"] * i["C"] + i["alpha"] * (i["A"] @ i["B"])}


def np_stencil(i, s):
    a = i["in"].astype(np.float64)
    out = a.copy()
    c = (slice(1, -1),) * 3
    out[c] = (0.5 * a[c]
              + 0.125 * (a[:-2, 1:-1, 1:-1] + a[2:, 1:-1, 1:-1])
              + 0.0625 * (a[1:-1, :-2, 1:-1] + a[1:-1, 2:, 1:-1]
                          + a[1:-1, 1:-1, :-2] + a[1:-1, 1:-1, 2:]))
    return {"out": out}


def np_channel(i, s):
    g, b = i["gamma"][None, :, None, None], i["beta"][None, :, None, None]
    return {"y": g * i["x"] + b}        # float32 throughout, like the C


def np_dot(i, s):
    return {"return": np.dot(i["x"], i["y"])}


def np_total(i, s):
    return {"sum": np.sum(i["x"].astype(np.float64))}


def np_lower(i, s):
    L, b, n = i["L"], i["b"], s["n"]
    x = np.zeros(n)
    for r in range(n):
        x[r] = (b[r] - L[r, :r] @ x[:r]) / L[r, r]
    return {"x": x, "S": i["S"] + np.tril(np.outer(x, x))}


def np_smooth(i, s):
    x = i["x"]
    y = np.array(i["y"], dtype=np.float64)   # y[0] is never written: it keeps its input value
    y[1:] = (x[:-2] + x[1:-1] + x[2:]) / 3.0
    return {"y": y}


def np_clamp(i, s):
    x, lo, hi = i["x"], i["lo"], i["hi"]
    return {"c": np.where(x < lo, lo, np.where(x > hi, hi, x)).astype(np.float32),
            "r": np.where(x > 0, x, np.float32(0.01) * x)}


def np_mathy(i, s):
    x = i["x"]
    return {"out": np.sqrt(np.abs(x)) + np.exp(x) - x ** 2,
            "g": np.maximum(i["f"], np.float32(0.25))}


def np_isqrt(i, s):
    return {"r": np.floor(np.sqrt(i["x"])).astype(np.int32)}


def np_scale(i, s):
    return {"y": i["a"] * i["x"]}


def np_shift(i, s):
    return {"y": i["x"] + i["a"]}


def np_weighted(i, s):
    return {"out": np.outer(i["A"] @ i["w"], np.arange(s["m"]) + i["k"])}


# key -> (sizes to run at, numpy version, relative tolerance)
MATH = {
    "axpy_pointers.c": ({"n": 7}, np_axpy, 1e-14),
    "matvec_flat.c": ({"n": 5, "m": 3}, np_matvec, 1e-5),
    "annotated_pointer.c": ({"n": 4, "m": 3}, np_scale_rows, 1e-14),
    "prefix_sum_1d.c": ({"n": 9}, np_prefix, 0),
    "first_element_pointers.c": ({"n": 9}, np_prefix, 0),
    "matmul_2d.c": ({"ni": 4, "nj": 5, "nk": 3}, np_gemm, 1e-12),
    "stencil_3d.c": ({"nz": 4, "ny": 5, "nx": 6}, np_stencil, 1e-5),
    "channel_scale_4d.c": ({"nb": 2, "nc": 3, "nh": 4, "nw": 2}, np_channel, 1e-6),
    "dot_return.c": ({"n": 11}, np_dot, 1e-12),
    "sum_pointer.c": ({"n": 13}, np_total, 1e-5),
    "triangular.c": ({"n": 6}, np_lower, 1e-10),
    "smooth_interior.c": ({"n": 8}, np_smooth, 1e-14),
    "conditionals.c": ({"n": 16}, np_clamp, 0),
    "math_calls.c": ({"n": 10}, np_mathy, 1e-12),
    "while_loop.c": ({"n": 12}, np_isqrt, 0),
    "two_functions.c@scale": ({"n": 5}, np_scale, 1e-14),
    "two_functions.c@shift": ({"n": 5}, np_shift, 1e-14),
    "presets_domains.c": ({"n": 5, "m": 3}, np_weighted, 1e-12),
}


# -- the tests -----------------------------------------------------------------------------

def test_every_sample_is_covered():
    files = {p.name for p in SAMPLES.glob("*.c")}
    assert len(files) >= 12
    assert files == {k.split("@")[0] for k in EXPECT}
    assert set(MATH) == set(EXPECT)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_samples_are_valid_c99():
    for path in sorted(SAMPLES.glob("*.c")):
        r = subprocess.run(["gcc", "-std=c99", "-pedantic", "-Wall", "-fsyntax-only", str(path)],
                           capture_output=True, text=True)
        assert r.returncode == 0, f"{path.name}: {r.stderr}"


@pytest.mark.parametrize("key", list(EXPECT))
def test_is_contents(key):
    e, k = EXPECT[key], _read(key)
    assert k.name == e["name"]
    assert k.params == e["params"]
    assert {s.name: s.presets for s in k.sizes} == e["sizes"]
    assert [s.name for s in k.sizes] == list(e["sizes"])
    assert tuple((s.name, s.dtype, s.intent) for s in k.scalars) == e["scalars"]
    assert tuple((a.name, a.dtype, a.shape, a.intent) for a in k.arrays) == e["arrays"]
    assert k.constraints == e["constraints"]
    assert {d.target: (d.kind, d.low, d.high) for d in k.domains} == e["domains"]
    assert k.description == e["description"]
    assert k.init is None                           # no main: no original initialisation
    assert k.origin.file == str(_file(key)) and k.origin.function == e["name"]
    assert f"{e['name']}(" in k.reference and "#pragma" not in k.reference
    # the outputs are exactly the written arrays and the return value
    assert {x.name for x in k.outputs} == {n for n, _, i in e["scalars"] if i == "out"} | \
        {n for n, _, _, i in e["arrays"] if i != "in"}


def test_origin_line_and_column():
    k = read_c(SAMPLES / "two_functions.c", "shift")
    assert (k.origin.line, k.origin.col) == (8, 1)
    k = read_c(SAMPLES / "annotated_pointer.c")
    assert (k.origin.line, k.origin.col) == (4, 1)


def test_two_functions_need_function():
    with pytest.raises(UserError) as e:
        read_c(SAMPLES / "two_functions.c")
    assert "several candidate kernels: scale, shift" in str(e.value)
    assert "--function" in str(e.value)
    assert str(e.value).startswith(f"{SAMPLES / 'two_functions.c'}:8:1: ")


def test_presets():
    k = _read("presets_domains.c")
    assert k.dataset_sizes("MINI") == {"n": 8, "m": 4}
    assert k.dataset_sizes("MEDIUM") == {"n": 128, "m": 64}
    assert k.size("n").macro is None
    with pytest.raises(ISError, match="no LARGE preset"):
        k.dataset_sizes("LARGE")


def test_synthesized_inputs_follow_domains():
    k = _read("presets_domains.c")
    sizes = {"n": 6, "m": 2}
    i = synthesize(k, sizes, seed=3)
    assert set(i) == {"k", "A", "w"}
    assert i["A"].shape == (6, 6) and i["A"].dtype == np.float64
    assert np.allclose(i["A"], i["A"].T) and np.all(np.linalg.eigvalsh(i["A"]) > 0)
    assert i["w"].shape == (6,) and np.all((i["w"] >= 0.5) & (i["w"] <= 2.0))
    assert i["k"].dtype == np.int32 and 1 <= int(i["k"]) <= 5
    # the same seed gives the same inputs, another seed others
    again = synthesize(k, sizes, seed=3)
    assert all(np.array_equal(i[n], again[n]) for n in i)
    assert not np.array_equal(i["A"], synthesize(k, sizes, seed=4)["A"])

    t = _read("triangular.c")
    L = synthesize(t, {"n": 5}, seed=0)["L"]
    diag = np.abs(np.diag(L))
    assert np.all(diag > np.abs(L).sum(axis=1) - diag)


@pytest.mark.parametrize("key", list(EXPECT))
def test_round_trip(key, tmp_path):
    k = _read(key)
    text = reference_file(k)
    path = tmp_path / f"{k.name}_ref.c"
    path.write_text(text)
    again = read_c(path, k.name)
    assert again.key() == k.key()
    assert again == k.replace(origin=again.origin)
    # and printing it again is a fixed point
    assert reference_file(again).split("*/", 1)[1] == text.split("*/", 1)[1]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("key", list(EXPECT))
def test_reference_computes_the_math(key):
    k = _read(key)
    sizes, numpy_version, rtol = MATH[key]
    inputs = synthesize(k, sizes, seed=7)
    run = run_reference(k, sizes, inputs)
    assert set(run.outputs) == {x.name for x in k.outputs}
    expected = numpy_version(inputs, sizes)
    assert set(expected) == set(run.outputs)
    for name, want in expected.items():
        got = run.outputs[name]
        x = next((a for a in k.arrays if a.name == name), None)
        dtype = x.dtype if x is not None else k.returns.dtype
        assert got.dtype == np.dtype({"double": "float64", "float": "float32", "int": "int32"}[dtype])
        assert got.shape == np.shape(want), name
        if rtol == 0:
            np.testing.assert_array_equal(got, want, err_msg=f"{key}: {name}")
        else:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, err_msg=f"{key}: {name}")
    assert run.seconds >= 0


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_conditionals_take_every_branch():
    """The clamp sample's inputs hit all three branches and both ternary arms."""
    k = _read("conditionals.c")
    sizes = {"n": 9}
    x = np.linspace(-1, 1, 9, dtype=np.float32)
    junk = np.full(9, 7.0, dtype=np.float32)
    run = run_reference(k, sizes, {"lo": np.float32(-0.5), "hi": np.float32(0.5), "x": x,
                                   "c": junk})
    np.testing.assert_array_equal(run.outputs["c"], np.clip(x, -0.5, 0.5))
    np.testing.assert_array_equal(run.outputs["r"], np.where(x > 0, x, np.float32(0.01) * x))


def test_cli_is_and_ref(tmp_path):
    from click.testing import CliRunner

    from t2c.cli import main
    runner = CliRunner()
    r = runner.invoke(main, ["is", str(SAMPLES / "two_functions.c"), "--function", "shift"])
    assert r.exit_code == 0, r.output
    assert "shift" in r.output
    r = runner.invoke(main, ["is", str(SAMPLES / "annotated_pointer.c"), "--as-c"])
    assert r.exit_code == 0, r.output
    assert "t2c: array a[n][m] inout" in r.output
    out = tmp_path / "out"
    r = runner.invoke(main, ["ref", str(SAMPLES / "dot_return.c"), "--size", "n=6", "--seed", "1",
                             "-o", str(out)])
    assert r.exit_code == 0, r.output
    x, y = np.load(out / "inputs" / "x.npy"), np.load(out / "inputs" / "y.npy")
    assert x.shape == (6,)
    np.testing.assert_allclose(np.load(out / "outputs" / "return.npy"), x @ y, rtol=1e-12)


def test_a_size_annotation_on_an_int_that_bounds_no_for_loop_is_kept(tmp_path):
    """An iteration cap (`maxit`) bounds a while loop, not a for loop: the annotation still makes
    it a size with its presets, so --size maxit=50 is used, not drawn at random (issue #35)."""
    src = tmp_path / "relax.c"
    src.write_text("/* t2c: size n MINI=8 SMALL=64 MEDIUM=256 LARGE=1024 EXTRALARGE=4096 */\n"
                   "/* t2c: size maxit MINI=3 SMALL=5 MEDIUM=10 LARGE=20 EXTRALARGE=40 */\n"
                   "/* t2c: constraint maxit >= 1 */\n"
                   "void relax(int n, int maxit, double *x)\n{\n  for (int i = 0; i < n; i++) {\n"
                   "    double v = x[i];\n    int it = 0;\n    while (it < maxit) { v = 0.5 * v + 1.0; it++; }\n"
                   "    x[i] = v;\n  }\n}\n")
    k = read_c(src)
    assert [s.name for s in k.sizes] == ["n", "maxit"] and k.dataset_sizes("MINI") == {"n": 8, "maxit": 3}
    src.write_text(src.read_text().replace("size maxit", "size maxiter"))
    with pytest.raises(UserError, match="names 'maxiter', which is no parameter"):
        read_c(src)


def test_sizes_with_different_presets_are_refused_at_their_annotation(tmp_path):
    """As in a spec: a dataset gives every size a value, so `t2c: size m MINI=4` beside
    `t2c: size n MINI=8 SMALL=64` is refused at m's annotation (it read, and verify at SMALL
    failed with no file and no size named); a size with no presets at all is left alone."""
    src = tmp_path / "scale.c"
    body = ("void scale(int n, int m, float A[n][m], float B[n][m])\n{\n  for (int i = 0; i < n; i++)\n"
            "    for (int j = 0; j < m; j++)\n      B[i][j] = 2.0f * A[i][j];\n}\n")
    src.write_text("/* t2c: size n MINI=8 SMALL=64 */\n/* t2c: size m MINI=4 */\n" + body)
    with pytest.raises(UserError) as e:
        read_c(src)
    assert str(e.value) == (f"{src}:2:1: size 'm' has no SMALL preset, which n has (presets of m: MINI): a "
                            "dataset gives every size a value; give m a SMALL value too, or remove SMALL from n")
    src.write_text("/* t2c: size n MINI=8 SMALL=64 */\n" + body)
    assert [s.presets for s in read_c(src).sizes] == [(("MINI", 8), ("SMALL", 64)), ()]


def test_prose_that_mentions_an_annotation_is_no_annotation(tmp_path):
    """An annotation is a comment line that starts `t2c:` (docs/annotations.md); prose that names
    one (`without a t2c: array line`) was read as a malformed annotation and refused."""
    from t2ctest import c_kernel
    k = c_kernel(tmp_path, """\
/* Scales rows of a flat matrix, with no `t2c: array` line: its shape is inferred.
 * t2c: size n MINI=5 SMALL=50
 *   t2c: size m MINI=6 SMALL=60
 */
void scale_rows(int n, int m, double s, double *a)   // in place, see t2c: docs
{
  /** t2c: constraint n >= 2 */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      a[i * m + j] *= s;   /* a flat index; t2c: reads it as a[i][j] */
}
""", "scale_rows")
    assert k.dataset_sizes("MINI") == {"n": 5, "m": 6} and k.constraints == ("n >= 2",)


PROGRAM = """\
#include <stdio.h>
#define N 100
void init(int n, double *x) { for (int i = 0; i < n; i++) x[i] = i; }
MARK
void twice(int n, double *x) { for (int i = 0; i < n; i++) x[i] *= 2; }
int main(void) { static double x[N]; init(N, x); twice(N, x); printf("%f\\n", x[1]); return 0; }
"""


def test_a_kernel_comment_picks_the_kernel_of_a_program(tmp_path):
    """A whole program (main, an init, the kernel): `// t2c: kernel` above a function picks it,
    in batch too (no --function there); unmarked, the kernel is the function that reads arrays
    (init only fills x), and with two such the error says to mark one."""
    from t2c.engine.batch import discover
    path = tmp_path / "program.c"
    path.write_text(PROGRAM.replace("MARK", ""))
    assert read_c(path).name == "twice"
    path.write_text(PROGRAM.replace("MARK", "void half(int n, double *x) { for (int i = 0; i < n; i++) x[i] /= 2; }")
                    .replace("twice(N, x);", "twice(N, x); half(N, x);"))
    with pytest.raises(UserError, match="several candidate kernels: half, twice.*t2c: kernel"):
        read_c(path)
    notes = []
    assert discover([tmp_path], notes.append) == [] and "`// t2c: kernel`" in notes[0]
    path.write_text(PROGRAM.replace("MARK", "// t2c: kernel"))
    assert read_c(path).name == "twice" and discover([tmp_path]) == [path]
    path.write_text("// t2c: kernel\n" + PROGRAM.replace("MARK", ""))       # above the first function
    assert read_c(path).name == "init"
