"""settings mirror the C++ runtime: exit codes and sanitizer exit codes agree."""
from __future__ import annotations

import re

from t2c.runtime.emu import settings


def test_exit_codes_match_device_header():
    header = (settings.INCLUDE_DIR / "t2c_emu" / "device.h").read_text()
    codes = dict(re.findall(r"(kExit\w+) = (\d+)", header))
    assert int(codes["kExitInternal"]) == settings.EXIT_INTERNAL
    assert int(codes["kExitDivergent"]) == settings.EXIT_DIVERGENT
    assert int(codes["kExitMemory"]) == settings.EXIT_MEMORY
    assert int(codes["kExitUnsupported"]) == settings.EXIT_UNSUPPORTED
    assert int(codes["kExitTrap"]) == settings.EXIT_TRAP


def test_sanitizer_exit_codes_match_runtime():
    runtime = settings.RUNTIME_SOURCE.read_text()
    assert f"exitcode={settings.EXIT_ASAN}" in runtime
    assert f"exitcode={settings.EXIT_TSAN}" in runtime
    assert "detect_stack_use_after_return=0" in runtime


def test_every_finding_kind_maps_to_a_status():
    runtime = settings.RUNTIME_SOURCE.read_text() + (settings.INCLUDE_DIR / "t2c_emu" / "device.h").read_text()
    kinds = set(re.findall(r'finding\(\s*[\w:]+,\s*"([a-z-]+)"', runtime)) | {"divergent-barrier"}
    assert kinds <= set(settings.FINDING_STATUS), kinds - set(settings.FINDING_STATUS)
    assert set(settings.FINDING_STATUS.values()) <= set(settings.STATUSES)
