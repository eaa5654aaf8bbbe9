"""`t2c gen KERNEL_SOURCE [--function NAME] [-o OUT.cu]`: write a poly candidate.

Reads the kernel with the C frontend, lowers it with the `poly` generator at its
default options, and writes the `.cu` text to OUT.cu (or stdout).  A file that
does not parse is a user error (one line, exit 2), as everywhere in the CLI.
"""
from __future__ import annotations

from pathlib import Path

import click


@click.command("gen")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--function", help="The kernel function, when the file has several.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Where to write the candidate .cu (default: stdout).")
@click.option("--sequential", is_flag=True, help="One GPU thread for everything (the safe baseline).")
def gen_command(file, function, output, sequential):
    """Generate a CUDA candidate for a C kernel with the poly generator (no model)."""
    from ..frontends import read_kernel
    from .poly import DEFAULT, generate
    k = read_kernel(file, function)
    source = generate(k, DEFAULT.replace(sequential=sequential))
    if output:
        Path(output).write_text(source)
        click.echo(f"{k.name}: wrote {output}", err=True)
    else:
        click.echo(source, nl=False)
