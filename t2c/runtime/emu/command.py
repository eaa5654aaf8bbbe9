"""`t2c run FILE.cu [--backend emu|gpu|auto] [--seeds K] [--sanitize] [--race-check] [--timeout S] [-- ARGS...]`

Runs a standalone CUDA program (one with its own `main`).  On `emu` it is built for the
CPU and run under K seeds (see `emulate.py`); on `gpu` it is built with
`nvcc -O2 -arch=native` and run once; `auto` picks `gpu` when `nvidia-smi -L` lists a
GPU.  The program's stdout is passed through; one summary line goes to stderr.

Exit status: 0 only when the program exited 0 and nothing was found; otherwise one of
EXIT_STATUS below (a failing program's own exit code where it has one).
"""
from __future__ import annotations

import hashlib
import sys
import tempfile
from pathlib import Path

import click

from ... import config

from ..build import BUSY_COMPILER
from ..process import COMPILE_TIMEOUT, run_process
from . import settings
from .emulate import emulate

EXIT_STATUS = {"ok": 0, "failed": 1, "race": 3, "oob": 4, "divergent_barrier": 5, "unsupported": 6,
               "build_error": 7, "timeout": 8, "crash": 9}


def gpu_available() -> bool:
    """True when nvidia-smi lists at least one GPU (runtime.gpu asks it once per process)."""
    from ..gpu import gpu_present
    return gpu_present()


@click.command("run", context_settings={"ignore_unknown_options": True})
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--backend", type=click.Choice(["emu", "gpu", "auto"]), default="auto", show_default=True,
              help="emu: CPU emulation; gpu: nvcc and a real device; auto: gpu when one is present.")
@click.option("--seeds", type=click.IntRange(1, 100), default=3, show_default=True,
              help="emu: runs with different thread/block orders whose outputs must agree.")
@click.option("--sanitize", is_flag=True, help="emu: build with AddressSanitizer and UBSan.")
@click.option("--race-check", is_flag=True, help="emu: also run once under ThreadSanitizer (races at their line).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
              help="Seconds per run.")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run_command(file: Path, backend: str, seeds: int, sanitize: bool, race_check: bool, timeout: float,
                args: tuple[str, ...]):
    """Run a standalone CUDA program FILE (with its own main), passing ARGS after --."""
    if backend == "auto":
        backend = "gpu" if gpu_available() else "emu"
    if backend == "gpu":
        sys.exit(_run_gpu(file, args, timeout))
    outcome = emulate(file, args, seeds=seeds, sanitize=sanitize, timeout=timeout, race_check=race_check)
    sys.stdout.write(outcome.stdout)
    sys.stdout.flush()
    if outcome.status in ("build_error",):
        sys.stderr.write(outcome.stderr)
    label = f"t2c run (emu, {seeds} seed{'s' if seeds != 1 else ''}{', sanitized' if sanitize else ''})"
    click.echo(f"{label}: {outcome.status}: {outcome.message}", err=True)
    code = EXIT_STATUS[outcome.status]
    if outcome.status == "failed" and outcome.per_seed:
        rc = outcome.per_seed[-1].returncode
        code = rc if rc is not None and 0 < rc < 256 else code
    sys.exit(code)


def _run_gpu(file: Path, args, timeout: float) -> int:
    nvcc = config.load().nvcc
    if nvcc is None:
        click.echo("t2c run (gpu): no nvcc found; install the CUDA toolkit (or `make setup`) or use --backend emu",
                   err=True)
        return EXIT_STATUS["build_error"]
    key = hashlib.sha256(file.read_bytes()).hexdigest()[:24]
    out_dir = settings.cache_dir().parent / "gpu"
    out_dir.mkdir(parents=True, exist_ok=True)
    exe = out_dir / f"{file.stem}-{key}"
    if not exe.exists():
        with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
            tmp_exe = Path(tmp) / "program"
            p = run_process([nvcc, "-O2", "-arch=native", str(file), "-o", str(tmp_exe)], timeout=COMPILE_TIMEOUT)
            if not p.ok:
                sys.stderr.write(p.stdout + p.stderr)
                why = (f"did not finish compiling {file} within {COMPILE_TIMEOUT:.0f} s (stopped); {BUSY_COMPILER}"
                       if p.timed_out else f"failed for {file}")
                click.echo(f"t2c run (gpu): build_error: nvcc {why}", err=True)
                return EXIT_STATUS["build_error"]
            tmp_exe.replace(exe)
    result = run_process([str(exe), *args], timeout=timeout)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if result.ok:
        click.echo("t2c run (gpu): ok", err=True)
        return 0
    click.echo(f"t2c run (gpu): failed: {result.describe()}", err=True)
    return EXIT_STATUS["timeout"] if result.timed_out else (result.returncode if result.returncode
                                                             and 0 < result.returncode < 256 else 1)


if __name__ == "__main__":
    run_command()
