"""The GPU ceilings: the measuring program checks its own work (run here on emu, tiny), the
rates come from its lines, they are stored per GPU, and the roofline fraction uses them."""
import pytest

from t2c.runtime import ceilings
from t2c.verify.device import emu_available


@pytest.mark.skipif(not emu_available(), reason="needs the emu backend (t2c.runtime.emu)")
def test_the_ceilings_program_runs_and_checks_itself(tmp_path):
    from t2c.runtime.emu.emulate import emulate
    cu = tmp_path / "ceilings.cu"
    cu.write_text(ceilings.SOURCE)
    run = emulate(cu, ["1000", "10", "2", "2"], seeds=1, timeout=120)
    assert run.status == "ok", run.message
    lines = run.stdout.splitlines()
    assert "copy_bytes 16000" in lines and "fp64_flops 81920" in lines and "fp32_flops 81920" in lines
    figures = ceilings.parse(run.stdout)
    assert all(figures[k] > 0 for k in ("gbps", "fp64_tflops", "fp32_tflops"))
    # a wrong copy is the program's failure, not a figure
    broken = ceilings.SOURCE.replace("dst[i] = src[i];", "dst[i] = src[i] + (i == 7);")
    cu.write_text(broken)
    assert emulate(cu, ["1000", "10", "2", "2"], seeds=1, timeout=120).status != "ok"


def test_rates_are_medians_of_the_repetitions():
    out = "copy_bytes 8000000000\ncopy_ms 2.0\ncopy_ms 9.0\ncopy_ms 2.2\n" \
          "fp64_flops 1000000000000\nfp64_ms 20\nfp32_flops 1000000000000\nfp32_ms 10\n"
    f = ceilings.parse(out)
    assert f["gbps"] == pytest.approx(8e9 / 2.2e-3 / 1e9)
    assert f["fp64_tflops"] == pytest.approx(50.0) and f["fp32_tflops"] == pytest.approx(100.0)
    with pytest.raises(ceilings.CeilingsFailed, match="no usable timings"):
        ceilings.parse("copy_bytes 10\n")


def test_stored_per_gpu_and_never_measured_on_read(tmp_path, monkeypatch):
    monkeypatch.setenv("T2C_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr("t2c.runtime.gpu.fingerprint", lambda: "NVIDIA H200 x1, driver 580")
    assert ceilings.cached() is None
    ceilings.store({"gbps": 4250.0, "fp64_tflops": 60.0, "fp32_tflops": 60.0, "tflops": 60.0})
    assert ceilings.cached()["gbps"] == 4250.0 and ceilings.cached()["gpu"] == "NVIDIA H200 x1, driver 580"
    monkeypatch.setattr("t2c.runtime.gpu.fingerprint", lambda: "another GPU")
    assert ceilings.cached() is None


def test_roofline_fraction_is_the_best_time_over_the_measured_one():
    c = {"gbps": 4000.0, "fp64_tflops": 50.0, "fp32_tflops": 100.0}
    # memory bound: 4 GB at 4000 GB/s is 1 ms at best; measured 4 ms -> 25 %
    assert ceilings.roofline_pct(1_000_000, 4_000_000_000, 4.0, c) == pytest.approx(25.0)
    # compute bound: 100 GFLOP at 50 TF/s is 2 ms; in float at 100 TF/s, 1 ms
    assert ceilings.roofline_pct(100e9, 1000, 8.0, c) == pytest.approx(25.0)
    assert ceilings.roofline_pct(100e9, 1000, 8.0, c, "float") == pytest.approx(12.5)
    assert ceilings.roofline_pct(1, 1, 0.0, c) is None


def test_evolve_measures_the_ceilings_once(monkeypatch):
    """`--evolve` on a GPU (`t2c gen`, `t2c batch`) needs the ceilings to order its moves: measured
    when none are stored, left alone when they are, and a failure is said, not fatal."""
    stored, said = [], []
    monkeypatch.setattr(ceilings, "store", lambda figures: stored.append(figures))
    monkeypatch.setattr(ceilings, "cached", lambda: None)
    monkeypatch.setattr(ceilings, "measure", lambda: {"gbps": 3900.0, "tflops": 33.0})
    ceilings.ensure(said.append)
    assert stored == [{"gbps": 3900.0, "tflops": 33.0}] and "measuring this GPU's ceilings" in said[0]

    def fails():
        raise ceilings.CeilingsFailed("nvcc failed")
    monkeypatch.setattr(ceilings, "measure", fails)
    ceilings.ensure(said.append)
    assert "could not be measured (nvcc failed)" in said[-1] and len(stored) == 1
    monkeypatch.setattr(ceilings, "cached", lambda: {"gbps": 1.0})
    said.clear()
    ceilings.ensure(said.append)
    assert said == []
