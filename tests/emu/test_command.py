"""`t2c run` on the emu backend, through click's test runner."""
from __future__ import annotations

from click.testing import CliRunner

from t2c.runtime.emu.command import EXIT_STATUS, run_command

from .conftest import needs_gxx

pytestmark = needs_gxx

PROGRAM = r"""#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
__global__ void fill(int* p, int v) { p[threadIdx.x] = v + threadIdx.x; }
int main(int argc, char** argv) {
    int v = argc > 1 ? atoi(argv[1]) : 0, *d, h[4];
    cudaMalloc(&d, sizeof h);
    fill<<<1, 4>>>(d, v);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%d %d\n", h[0], h[3]);
    return h[0] == 100 ? 2 : 0;
}
"""


def test_run_passes_args_and_output(tmp_path, emu_cache, monkeypatch):
    monkeypatch.setenv("T2C_EMU_CACHE", str(emu_cache))
    f = tmp_path / "p.cu"
    f.write_text(PROGRAM)
    r = CliRunner().invoke(run_command, [str(f), "--backend", "emu", "--seeds", "2", "--", "7"])
    assert r.exit_code == 0, r.output
    assert "7 10\n" in r.output and "ok" in r.output


def test_run_failing_program_and_finding(tmp_path, emu_cache, monkeypatch):
    monkeypatch.setenv("T2C_EMU_CACHE", str(emu_cache))
    f = tmp_path / "p.cu"
    f.write_text(PROGRAM)
    r = CliRunner().invoke(run_command, [str(f), "--backend", "emu", "--seeds", "1", "--", "100"])
    assert r.exit_code == 2   # the program's own exit code
    bad = tmp_path / "oob.cu"
    bad.write_text(PROGRAM.replace("fill<<<1, 4>>>", "fill<<<1, 8>>>"))
    r = CliRunner().invoke(run_command, [str(bad), "--backend", "emu", "--sanitize", "--seeds", "1"])
    assert r.exit_code == EXIT_STATUS["oob"], r.output
    assert "oob.cu:4" in r.output


def test_bad_flag_is_a_usage_error(tmp_path):
    f = tmp_path / "p.cu"
    f.write_text(PROGRAM)
    r = CliRunner().invoke(run_command, [str(f), "--backend", "tpu"])
    assert r.exit_code == 2 and "Invalid value" in r.output and "Traceback" not in r.output


def test_a_program_that_fails_by_a_race_gets_the_race_named(emu_cache, monkeypatch):
    """A reduction without its barrier: the program's results change with the thread order.
    Without --race-check, t2c runs it under the race detector and names the line."""
    from pathlib import Path
    monkeypatch.setenv("T2C_EMU_CACHE", str(emu_cache))
    bug = Path(__file__).parent.parent / "cuda" / "bugs" / "bug_reduce_missing_syncthreads.cu"
    r = CliRunner().invoke(run_command, [str(bug), "--backend", "emu", "--seeds", "3"])
    assert r.exit_code == EXIT_STATUS["race"], r.output
    assert "data race" in r.output and "bug_reduce_missing_syncthreads.cu:26" in r.output
