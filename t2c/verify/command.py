"""`t2c verify KERNEL_SOURCE --candidate X.cu`: climb the ladder and print the evidence card.

Exit codes: 0 accepted, 1 rejected (the card names the rung and the reason),
2 usage error (UserError: a file that does not parse, an unusable backend).
"""
from __future__ import annotations

import sys
from pathlib import Path

import click

from .. import config
from ..errors import UserError
from ..ir import DATASETS


@click.command("verify")
@click.argument("kernel_source", type=click.Path(dir_okay=False))
@click.option("--candidate", "candidate", required=True, type=click.Path(dir_okay=False),
              help="The candidate .cu exporting NAME and NAME_device with extern \"C\".")
@click.option("--function", help="The kernel function, when the C file has several.")
@click.option("--backend", type=click.Choice(["auto", "gpu", "emu"]), default="auto", show_default=True,
              help="gpu: a real device; emu: CUDA on the CPU (correctness only); auto: gpu when one answers.")
@click.option("--dataset", type=click.Choice(DATASETS, case_sensitive=False), default=None,
              help="Target dataset of the full rung (default: LARGE on gpu, MINI on emu).")
@click.option("--seed", type=int, default=None,
              help="Replay a run: the seed a card reports (default: a fresh secret seed).")
@click.option("--no-bench", is_flag=True, help="Skip the bench rung.")
@click.option("--json", "as_json", is_flag=True, help="Print the evidence card as JSON.")
def verify_command(kernel_source, candidate, function, backend, dataset, seed, no_bench, as_json):
    """Verify a candidate against a kernel: static, build, gate, smoke, random, races, full, bench."""
    from ..frontends import read_kernel
    from .device import resolve_backend
    from .ladder import default_dataset, ladder
    if not Path(kernel_source).exists():
        raise UserError("no such file", file=kernel_source, hint="give the kernel's C source or spec")
    if not Path(candidate).exists():
        raise UserError("no such candidate file", file=candidate)
    backend = resolve_backend(backend)
    dataset = (dataset or default_dataset(backend)).upper()
    config.dataset_defaults(dataset)
    k = read_kernel(kernel_source, function)
    ev = ladder(k, candidate, backend=backend, dataset=dataset, seed=seed, bench=not no_bench)
    click.echo(ev.to_json() if as_json else ev.render())
    sys.exit(0 if ev.accepted else 1)
