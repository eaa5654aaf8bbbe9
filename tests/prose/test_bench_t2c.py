"""scripts/bench_t2c.py, the comparison with PyTorch: its agreement check, and (where torch is
installed; CI has none) every torch form against the host reference on the CPU (`--check`)."""
import importlib.util

import numpy as np
import pytest

from t2ctest import ROOT

spec = importlib.util.spec_from_file_location("bench_t2c", ROOT / "scripts" / "bench_t2c.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def test_agreement_needs_every_torch_output_among_the_specs():
    """A torch form whose output name the spec lacks was skipped, and the row said `yes`."""
    y = np.arange(4.0)
    assert bench.agree(np, {"y": y}, {"y": y}, None) == "yes"
    assert bench.agree(np, {"y": y}, {"z": y}, None).startswith("NO (z: the spec has no output")
    assert bench.agree(np, {"y": y}, {}, None).startswith("NO (the torch form returns nothing")
    assert bench.agree(np, {"y": y}, {"y": y + 1}, None).startswith("NO (y: max abs err 1")


def test_every_torch_form_agrees_with_the_reference_on_the_cpu(tmp_path):
    pytest.importorskip("torch")
    assert bench.main([str(tmp_path), "--check", "--dataset", "MINI"]) == 0
    rows = (tmp_path / "bench_t2c.csv").read_text().splitlines()[1:]
    bad = [r for r in rows if ",yes," not in r and "needs-llm" not in r]
    assert not bad, bad


def test_agreement_reads_16_bit_outputs_as_values_within_one_ulp():
    from t2c.verify.halfs import stored
    y = np.array([1.0, 1.5, 1.75])
    bits = stored(y, "__nv_bfloat16")                  # our output: bfloat16 bit patterns
    dtypes = {"y": "__nv_bfloat16"}
    assert bench.agree(np, {"y": bits}, {"y": y + 2.0 ** -7}, None, dtypes) == "yes"   # one ulp at 1
    assert bench.agree(np, {"y": bits}, {"y": y + 2.0 ** -5}, None, dtypes).startswith("NO (y:")
