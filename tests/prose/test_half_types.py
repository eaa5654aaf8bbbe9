"""float16 and bfloat16 in specs: storage types whose values compute in float.

The reference reads a 16-bit element through its conversion to float and rounds once, to
nearest even, where a statement stores into a 16-bit cell; accumulators and inferred
temporaries are float.  Forms whose rounding would depend on an order are refused.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from t2c import config
from t2c.errors import UserError
from t2c.frontends.prose import read_spec, spec_to_c
from t2c.frontends.prose.spec import load_spec
from t2c.verify.halfs import stored, values
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference
from t2ctest import accepted_on_emu

HEAD = """\
---
name: kern
sizes:
  n: {MINI: 13, LARGE: 1000}
  m: {MINI: 7, LARGE: 1000}
scalars:
  s: float16
arrays:
  x: float16[n] in
  A: bf16[n, m] in
  k: int[n] in
  y: half[n] inout
  B: bfloat16[n, m] out
domains:
  k: integers(0, 6)
---
```t2c
"""   # the first statement is on line 18


def write(tmp_path, body):
    p = tmp_path / "k.md"
    p.write_text(HEAD + body + "```\n")
    return p


def test_reads_convert_to_float_and_stores_round_once(tmp_path):
    p = write(tmp_path, "let t[i] = sum(j: A[i, j])\ny[i] += s * x[i] + t[i]\nB[i, j] = A[i, j] * 2.0\n")
    k = read_spec(p)
    assert {a.name: a.dtype for a in k.arrays} == {"x": "__half", "A": "__nv_bfloat16", "k": "int",
                                                   "y": "__half", "B": "__nv_bfloat16"}
    c = spec_to_c(load_spec(p))[0]
    assert "float t[n];" in c and "double acc_r1;" in c        # a float temporary, a double sum
    assert "acc_r1 += __bfloat162float(A[i][j]);" in c
    assert ("y[i] = __float2half_rn(__half2float(y[i]) + (((__half2float(s) * __half2float(x[i])) "
            "+ t[i])));") in c
    assert "B[i][j] = __float2bfloat16_rn((__bfloat162float(A[i][j]) * 2.0f));" in c

    sizes = k.dataset_sizes("MINI")
    run = run_reference(k, sizes, synthesize(k, sizes, seed=5))
    v = {n: values(a, {x.name: x.dtype for x in (*k.arrays, *k.scalars)}[n]) for n, a in run.inputs.items()
         if n != "k"}
    t = v["A"].astype(np.float32).sum(axis=1, dtype=np.float64).astype(np.float32)
    y = (v["y"].astype(np.float32) + (np.float32(v["s"]) * v["x"].astype(np.float32) + t)).astype(np.float16)
    assert np.array_equal(run.outputs["y"], y)
    assert np.array_equal(run.outputs["B"], stored(v["A"] * 2, "__nv_bfloat16"))


def test_casts_round_to_the_type_and_give_its_value_as_float(tmp_path):
    p = write(tmp_path, "y[i] = bfloat16(s * 3.0) + float16(x[i] / 3.0)\nB[i, j] = A[i, j]\n")
    c = spec_to_c(load_spec(p))[0]
    assert ("__bfloat162float(__float2bfloat16_rn(__half2float(s) * 3.0f)) + "
            "__half2float(__float2half_rn(__half2float(x[i]) / 3.0f))") in c.replace("((", "(").replace("))", ")")


BAD = {
    "scatter": ("for q in 0..n:\n    y[k[q]] += 1.0\nB[i, j] = A[i, j]\n", 19, 5,
                "adding through data into it would round in the order"),
    "sort": ("y[q] = sort(i: x[i])\nB[i, j] = A[i, j]\n", 18, 1, "into a 16-bit array 'y'"),
    "bitwise": ("y[i] = x[i] & 1\nB[i, j] = A[i, j]\n", 18, 13, "'&' needs integer operands"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_order_dependent_rounding_and_integer_operations_refused(case, tmp_path):
    body, line, col, words = BAD[case]
    with pytest.raises(UserError) as e:
        read_spec(write(tmp_path, body))
    msg = str(e.value)
    assert msg.startswith(f"{tmp_path / 'k.md'}:{line}:{col}: ") and words in msg, msg


def test_unknown_type_lists_the_16_bit_spellings(tmp_path):
    p = write(tmp_path, "y[i] = x[i]\nB[i, j] = A[i, j]\n")
    p.write_text(p.read_text().replace("s: float16", "s: float8"))
    with pytest.raises(UserError) as e:
        load_spec(p)
    assert "float16" in str(e.value) and "bfloat16" in str(e.value)


CORPUS = Path(__file__).resolve().parents[2] / "corpora" / "text2cuda"
HALF_SPECS = ("axpy_fp16", "gelu_bf16", "rms_norm_fp16")


@pytest.mark.skipif(config.load().nvcc is None, reason="needs nvcc")
@pytest.mark.parametrize("name", HALF_SPECS)
def test_poly_candidate_and_driver_build_with_nvcc(name):
    """The candidate's __half/__nv_bfloat16 storage and conversions are CUDA's own: the real
    headers accept them (built for the GPU, driver included; no device is needed to build)."""
    from t2c.generators.poly import generate
    from t2c.verify.harness import build_candidate
    k = read_spec(CORPUS / f"{name}.md")
    source = generate(k)
    header = "cuda_fp16.h" if name.endswith("fp16") else "cuda_bf16.h"
    assert f"#include <{header}>" in source
    build_candidate(k, source, "gpu")


def test_bfloat16_candidate_accepted_on_emu():
    from t2c.generators.poly import generate
    k = read_spec(CORPUS / "gelu_bf16.md")
    accepted_on_emu(k, generate(k))


def test_a_16_bit_temporary_in_a_float_kernel_rounds_and_is_accepted_on_emu(tmp_path):
    """The type appears only in a local: the reference and the candidate still get it."""
    p = tmp_path / "k.md"
    p.write_text("---\nname: k\nsizes: {n: {MINI: 13}}\narrays:\n  x: float[n] in\n  y: float[n] out\n---\n"
                 "```t2c\nlet h: float16[i] = x[i] * 3.0\ny[i] = h[i] / 3.0\n```\n")
    from t2c.generators.poly import generate
    k = read_spec(p)
    assert k.half_dtypes == ("__half",)
    sizes = k.dataset_sizes("MINI")
    run = run_reference(k, sizes, synthesize(k, sizes, seed=1))
    x = run.inputs["x"]
    assert np.array_equal(run.outputs["y"], (x * np.float32(3)).astype(np.float16).astype(np.float32) / np.float32(3))
    source = generate(k)
    assert "#include <cuda_fp16.h>" in source
    accepted_on_emu(k, source)


def test_compact_into_a_16_bit_array_rounds_each_kept_value_and_is_accepted_on_emu(tmp_path):
    p = tmp_path / "k.md"
    p.write_text("---\nname: k\nsizes: {n: {MINI: 29}}\narrays:\n  x: float[n] in\n  y: float16[n] inout\n"
                 "  count: int[] out\n---\n```t2c\ny[q], count = compact(i: x[i] / 3.0 where x[i] > 0.0)\n```\n")
    k = read_spec(p)
    assert "y[cmp_kept1] = __float2half_rn(x[cmp_i1] / 3.0f);" in spec_to_c(load_spec(p))[0].replace("((", "(").replace("))", ")")
    sizes = k.dataset_sizes("MINI")
    run = run_reference(k, sizes, synthesize(k, sizes, seed=2))
    x = run.inputs["x"]
    kept = (x[x > 0] / np.float32(3)).astype(np.float16)
    assert run.outputs["count"] == len(kept) and np.array_equal(run.outputs["y"][:len(kept)], kept)
    from t2c.generators.poly import generate
    accepted_on_emu(k, generate(k))          # poly's scan form (compact.py) prints the header too
