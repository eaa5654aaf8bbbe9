"""The environment fingerprint of a run: what a timing depends on, and a slug naming it.

`environment(meta)` takes the run's meta (its `settings` carry the GPU fingerprint
and the toolchain the engine detected) and adds the host's CPU model, OS and
Python.  `slug` names the machine class for history files: the GPU, the CPU model
and the toolchain, not the host name, so identical CI runners share one history.
A meta that already holds an `environment` (a re-render, a merge) keeps it.
"""
from __future__ import annotations

import hashlib
import platform
import re
from pathlib import Path


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment(meta: dict) -> dict:
    if meta.get("environment"):
        return dict(meta["environment"])
    settings = meta.get("settings", {})
    env = {"gpu": settings.get("gpu", "unknown"), "toolchain": settings.get("toolchain", "unknown"),
           "cpu": cpu_model(), "os": f"{platform.system()} {platform.release()}",
           "python": platform.python_version(), "t2c": meta.get("t2c", "")}
    env["slug"] = slug(env)
    return env


def slug(env: dict) -> str:
    """'h200-a1b2c3d4': a readable GPU name and a hash of everything timings depend on."""
    key = "|".join(str(env.get(k, "")) for k in ("gpu", "cpu", "toolchain"))
    gpu = str(env.get("gpu", "no-gpu"))
    # '1x NVIDIA H200 driver 560.35' -> 'nvidia-h200'; the driver lives in the hash
    name = re.sub(r"^\d+x\s+", "", gpu).split(" driver")[0]
    name = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "no-gpu"
    return f"{name[:40]}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"
