"""The t2c command line (click): is, ref, batch, explain, clean, run (and gen, verify, report).

User mistakes (a bad flag, a file that does not parse) print one line `file:line:col: what is
wrong; what to do` and exit 2, never a traceback; a fault of t2c itself prints one line naming
a log file that holds the traceback and exits 4. Exit codes, the same for every command: 0 all
accepted, 1 a kernel failed, 2 usage error, 3 performance regression only, 4 internal error, 5
nothing matched, 6 model endpoint failed (`errors.EndpointFailed`), 130 interrupted. In a
batch: 4, then 6, then 1, then 3. docs/usage.md, "Commands".
"""
from __future__ import annotations

import signal
import sys
from pathlib import Path

import click
import numpy as np

from . import __version__, config
from .errors import EXIT_ENDPOINT, EXIT_FAILED, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, EndpointFailed, UserError
from .generators.command import evolve_options, llm_flags, llm_options
from .ir import DATASETS, ISError

STAGE_CHOICES = ("parse", "reference", "generate", "suite", "verify", "bench")


def default_dataset() -> str:
    from .runtime.gpu import gpu_present
    return config.load().dataset or ("LARGE" if gpu_present() else "MINI")


class T2CGroup(click.Group):
    """One line for every command: a UserError exits 2, a failed model endpoint 6, a fault of
    t2c 4 (its traceback in a log file), Ctrl-C 130."""

    def invoke(self, ctx):
        # SIGTERM (a CI job's cancel, `kill`) unwinds like Ctrl-C: every process t2c started runs
        # in its own group and is killed on the way out (runtime/process.py), never left behind.
        signal.signal(signal.SIGTERM, _terminated)
        try:
            return super().invoke(ctx)
        except EndpointFailed as e:
            click.echo(f"t2c: {e}", err=True)
            sys.exit(EXIT_ENDPOINT)
        except UserError as e:
            click.echo(f"t2c: {e}", err=True)
            sys.exit(EXIT_USAGE)
        except ISError as e:                             # an IS that breaks its rules: the input's fault
            click.echo(f"t2c: {e}", err=True)
            sys.exit(EXIT_USAGE)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort, SystemExit):
            raise
        except KeyboardInterrupt:
            click.echo("t2c: interrupted; what finished is kept (cache and run state)", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except RecursionError:
            click.echo("t2c: the input nests too deeply for t2c's parsers (an expression or block "
                       "hundreds of levels deep); split it into statements", err=True)
            sys.exit(EXIT_USAGE)
        except Exception as e:                           # a fault of t2c: never a bare traceback
            click.echo(f"t2c: internal error: {type(e).__name__}: {str(e)[:200]}; the traceback is in "
                       f"{_crash_log()}: please report it with that file", err=True)
            sys.exit(EXIT_INTERNAL)


def _terminated(signum, frame):
    raise KeyboardInterrupt


def _crash_log() -> str:
    """Write the current exception's traceback to a fresh file and name it."""
    import tempfile
    import traceback
    fd, path = tempfile.mkstemp(prefix="t2c-crash-", suffix=".log")
    with open(fd, "w") as f:
        f.write(f"t2c {__version__}: {' '.join(sys.argv)}\n\n{traceback.format_exc()}")
    return path


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
    from .frontends import read_kernel
    from .frontends.c import reference_file
    from .ir import to_yaml
    k = read_kernel(file, function)
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
    from .frontends import read_kernel
    from .verify.inputs import synthesize
    from .verify.reference import ReferenceFailed, run_reference
    config.dataset_defaults(dataset)
    k = read_kernel(file, function)
    sizes = k.dataset_sizes((dataset or default_dataset()).upper()) if not size_pairs or dataset else {}
    sizes.update(parse_sizes(size_pairs))
    kind = input_kind or ("original" if k.init else "random")
    if kind == "original" and not k.init:
        raise UserError(f"{k.name} has no original initialisation (no main calling an init)",
                        file=file, hint="use --inputs random")
    try:
        run = run_reference(k, sizes, None if kind == "original" else synthesize(k, sizes, seed), nice=0,
                            checked_run=True)
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
@click.option("--backend", type=click.Choice(["auto", "gpu", "emu"]), default="auto", show_default=True)
@click.option("--generator", type=click.Choice(["poly", "llm", "hybrid"]), default="poly", show_default=True)
@click.option("-j", "--jobs", type=click.IntRange(min=0), default=0, help="Parallel CPU jobs (default: CPU count).")
@click.option("--gpu-jobs", type=click.IntRange(min=1), default=None, help="GPU slots (default: one per visible GPU).")
@click.option("-k/-x", "--keep-going/--fail-fast", default=True, help="Go on past failures (default) or stop.")
@click.option("-n", "--dry-run", is_flag=True, help="Print the plan with reasons; run nothing.")
@click.option("-B", "--always-make", "force_all", is_flag=True, help="Ignore the cache: run every target.")
@click.option("--rerun", multiple=True, type=click.Choice(STAGE_CHOICES), help="Run this stage again.")
@click.option("--only", multiple=True, metavar="GLOB", help="Only kernels matching (name or path).")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Leave out kernels matching.")
@click.option("--shard", metavar="K/N", help="Run shard K of N (also CI_NODE_INDEX/CI_NODE_TOTAL).")
@click.option("--seed", type=int, default=None, help="Test-data seed (default: this project's secret).")
@click.option("--timeout", type=float, default=None, help="Seconds per candidate run.")
@click.option("--report-dir", type=click.Path(file_okay=False), default=None,
              help="Where results.csv/.md/.json go (default .t2c/runs/<run>/).")
@click.option("--junit-xml", type=click.Path(dir_okay=False), default=None, help="Write JUnit XML here.")
@click.option("--baseline", metavar="RUN|HISTORY", default=None,
              help="Compare kernel times with this report folder, results.json or history.")
@click.option("--fail-on-regression", default="5%", show_default=True, metavar="PCT",
              help="With --baseline: exit 3 when a kernel is slower by this much (and significantly).")
@click.option("--executor", default="local", show_default=True, metavar="local|dask-local|dask://HOST:PORT",
              help="Where kernels run: local processes, a new local Dask cluster, or a Dask scheduler.")
@evolve_options(6, 300.0, "search each kernel's options against the ladder on its own test data and "
                "keep the fastest accepted candidate (emu: the first accepted; docs/poly.md)", "per kernel, ")
@llm_options
def batch_command(paths, dataset, backend, generator, jobs, gpu_jobs, keep_going, dry_run, force_all,
                  rerun, only, exclude, shard, seed, timeout, report_dir, junit_xml, executor, baseline,
                  fail_on_regression, evolve, evolve_candidates, evolve_seconds, **llm):
    """Run every kernel of a corpus through the pipeline, like make: incremental and parallel."""
    from .engine.run import batch
    config.dataset_defaults(dataset)
    code = batch(paths, dataset=dataset, backend=backend, generator=generator, jobs=jobs,
                 gpu_jobs=gpu_jobs, fail_fast=not keep_going, dry_run=dry_run, force_all=force_all,
                 rerun=rerun, only=only, exclude=exclude, shard=shard, seed=seed, timeout=timeout,
                 report_dir=report_dir, junit_xml=junit_xml, executor=executor, baseline=baseline,
                 fail_on_regression=fail_on_regression, llm=llm_flags(llm),
                 evolve=(evolve_candidates, evolve_seconds) if evolve else None)
    sys.exit(code)


@main.command("explain")
@click.argument("target")
def explain_command(target):
    """Say why TARGET (KERNEL or KERNEL:STAGE) last ran or was skipped."""
    from .engine.run import explain
    click.echo(explain(target))


@main.command("clean")
@click.option("--state/--no-state", default=True, help="Also forget the run state in .t2c/.")
def clean_command(state):
    """Remove cached artifacts (and the run state)."""
    from .engine.run import clean
    click.echo(clean(state))


def _register_optional_commands():
    from .generators.command import gen_command
    main.add_command(gen_command)
    from .report.command import report_group
    main.add_command(report_group)
    from .verify.command import verify_command
    main.add_command(verify_command)
    try:
        from .runtime.emu.command import run_command
    except ImportError:
        return
    main.add_command(run_command)


_register_optional_commands()

if __name__ == "__main__":
    main()
