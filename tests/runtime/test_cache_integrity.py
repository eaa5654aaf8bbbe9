"""A cached build output cut short or changed is built again, never run (its verdict would be
cached as up to date): every cached binary is checked against the hash recorded at build time."""
import subprocess

import pytest

from t2c.runtime.build import build, intact
from t2c.runtime.emu import build_emu

C = "#include <stdio.h>\nint main(void) { printf(\"42\\n\"); return 0; }\n"
CU = "#include <cstdio>\n__global__ void k(int *x) { *x = 42; }\n" \
     "int main() { int *d, h; cudaMalloc(&d, 4); k<<<1, 1>>>(d);\n" \
     "  cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost); printf(\"%d\\n\", h); return 0; }\n"


def _damage(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])             # a copy cut short: a disk full, a kill


def test_a_truncated_reference_binary_is_rebuilt(tmp_path):
    exe = build({"main.c": C}, ["-O1"], cache_dir=tmp_path)
    assert intact(exe)
    _damage(exe)
    assert not intact(exe)
    again = build({"main.c": C}, ["-O1"], cache_dir=tmp_path)
    assert again == exe and intact(again)
    assert subprocess.run([str(again)], capture_output=True, text=True).stdout == "42\n"


def test_a_truncated_emu_program_is_rebuilt(tmp_path):
    src = tmp_path / "p.cu"
    src.write_text(CU)
    first = build_emu([src], tmp_path / "a.out", sanitize=False, cache_dir=tmp_path / "emu")
    if not first.ok:
        pytest.skip(f"emu build unavailable: {first.log[:200]}")
    cached = next((tmp_path / "emu").glob("build-*/program"))
    _damage(cached)
    again = build_emu([src], tmp_path / "b.out", sanitize=False, cache_dir=tmp_path / "emu")
    assert again.ok and not again.cached and intact(cached)
    assert subprocess.run([str(tmp_path / "b.out")], capture_output=True, text=True).stdout == "42\n"
