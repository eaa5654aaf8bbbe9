"""The t2c command line (click): is, ref, batch, run.

User mistakes (a bad flag, a file that does not parse) print one line
`file:line:col: what is wrong; what to do` and exit 2, never a traceback.
Exit codes: 0 all accepted, 1 a kernel failed, 2 usage error, 4 internal error,
5 nothing matched.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import click
import numpy as np

from . import __version__, config
from .errors import UserError
from .ir import DATASETS

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL, EXIT_NOTHING = 0, 1, 2, 4, 5


def gpu_present() -> bool:
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    from .runtime.process import run_process
    r = run_process([smi, "-L"], timeout=20)
    return r.ok and "GPU" in r.stdout


def default_dataset() -> str:
    return config.load().dataset or ("LARGE" if gpu_present() else "MINI")


class T2CGroup(click.Group):
    """Turns UserError into one line and exit 2 for every command."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except UserError as e:
            click.echo(f"t2c: {e}", err=True)
            sys.exit(EXIT_USAGE)


dataset_option = click.option("--dataset", type=click.Choice(DATASETS, case_sensitive=False),
                              default=None, help="Size preset (default: LARGE with a GPU, MINI without).")


@click.group(cls=T2CGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="t2c")
def main():
    """t2c: C kernels and prose specs to CUDA, verified on unseen data and measured on a GPU."""


@main.command("is")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--function", help="The kernel function, when the file has several.")
@click.option("--as-c", is_flag=True, help="Print the IS as a C reference file instead of YAML.")
def is_command(file, function, as_c):
    """Print the intermediate structure (IS) of a kernel."""
    from .frontends.c import read_c, reference_file
    from .ir import to_yaml
    k = read_c(file, function)
    click.echo(reference_file(k) if as_c else to_yaml(k), nl=False)


def parse_sizes(pairs) -> dict[str, int]:
    out = {}
    for p in pairs:
        name, _, value = p.partition("=")
        if not value.strip().lstrip("-").isdigit():
            raise UserError(f"--size '{p}' is not NAME=INTEGER", hint="e.g. --size n=100")
        out[name.strip()] = int(value)
    return out


@main.command("ref")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--function", help="The kernel function, when the file has several.")
@dataset_option
@click.option("--size", "size_pairs", multiple=True, metavar="NAME=N", help="Set one size (repeatable).")
@click.option("--inputs", "input_kind", type=click.Choice(["original", "random"]), default=None,
              help="Original init from the source's main (default when it has one) or random.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for random inputs.")
@click.option("-o", "--output", "outdir", type=click.Path(file_okay=False), required=True,
              help="Folder for inputs/NAME.npy and outputs/NAME.npy.")
def ref_command(file, function, dataset, size_pairs, input_kind, seed, outdir):
    """Run the host reference and write its inputs and outputs as .npy files."""
    from .frontends.c import read_c
    from .verify.inputs import synthesize
    from .verify.reference import ReferenceFailed, run_reference
    k = read_c(file, function)
    sizes = k.dataset_sizes((dataset or default_dataset()).upper()) if not size_pairs or dataset else {}
    sizes.update(parse_sizes(size_pairs))
    kind = input_kind or ("original" if k.init else "random")
    if kind == "original" and not k.init:
        raise UserError(f"{k.name} has no original initialisation (no main calling an init)",
                        file=file, hint="use --inputs random")
    try:
        run = run_reference(k, sizes, None if kind == "original" else synthesize(k, sizes, seed))
    except ReferenceFailed as e:
        click.echo(f"t2c: {file}: {e}", err=True)
        sys.exit(EXIT_FAILED)
    out = Path(outdir)
    for sub, values in (("inputs", run.inputs), ("outputs", run.outputs)):
        (out / sub).mkdir(parents=True, exist_ok=True)
        for name, value in values.items():
            np.save(out / sub / f"{name}.npy", value)
    click.echo(f"{k.name}: sizes {sizes}, inputs {kind}, reference {run.seconds * 1e3:.3f} ms; "
               f"wrote {len(run.inputs)} inputs and {len(run.outputs)} outputs under {out}")


@main.command("batch")
@click.argument("paths", nargs=-1, required=True)
@dataset_option
@click.option("-j", "--jobs", type=int, default=0, help="Parallel kernels (default: CPU count).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed for random inputs of kernels without an original init.")
def batch_command(paths, dataset, jobs, seed):
    """Run every kernel of a corpus through the pipeline and print a table."""
    from .engine.batch import STAGES_NOT_BUILT, discover, run_batch, table
    sources = discover(paths)
    if not sources:
        click.echo("t2c: nothing matched " + " ".join(paths), err=True)
        sys.exit(EXIT_NOTHING)
    dataset = (dataset or default_dataset()).upper()
    click.echo(f"t2c batch: {len(sources)} kernel(s), dataset {dataset}: "
               f"frontend -> IS -> host reference -> fidelity against the original program")

    def progress(row):
        click.echo(f"  {row.status:6} {row.kernel}", err=True)

    rows = run_batch(sources, dataset, jobs, seed, on_row=progress)
    click.echo(table(rows))
    ok = sum(r.status == "ok" for r in rows)
    click.echo(f"\n{ok}/{len(rows)} kernels ok. Not built yet: {', '.join(STAGES_NOT_BUILT)} "
               f"(no CUDA is generated or verified by this version).")
    sys.exit(EXIT_OK if ok == len(rows) else EXIT_FAILED)


def _register_optional_commands():
    try:
        from .runtime.emu.command import run_command
    except ImportError:
        return
    main.add_command(run_command)


_register_optional_commands()

if __name__ == "__main__":
    main()
