"""`t2c report`: compare two runs, merge shard reports, re-render a report's HTML.

    t2c report compare BASE NEW [--threshold 5%] [--confidence 0.99] [--all]
    t2c report merge DIR... -o OUT [--history DIR]
    t2c report render RUN_DIR [--history DIR]

Takes report folders or results.json files (BASE also a history .jsonl or folder: the latest
earlier figures of NEW's machine, dataset and backend). `compare` exits 3 when at least one
kernel regressed (the ratio and the Mann-Whitney U test agree), else 0, also on a first night
with no earlier run; a missing or unreadable report is a usage error (exit 2). docs/reports.md.
"""
from __future__ import annotations

import sys

import click

from .compare import DEFAULT_CONFIDENCE, NoBaseline, compare_runs, exit_code, load_rows, parse_threshold


@click.group("report")
def report_group():
    """Compare, merge and re-render run reports."""


@report_group.command("compare")
@click.argument("base")
@click.argument("new")
@click.option("--threshold", default="5%", show_default=True,
              help="Smallest change of the median kernel time that counts.")
@click.option("--confidence", type=click.FloatRange(0.5, 0.999999), default=DEFAULT_CONFIDENCE,
              show_default=True, help="Confidence the one-sided Mann-Whitney U test must reach.")
@click.option("--all", "show_all", is_flag=True, help="Also list kernels that did not change.")
def compare_command(base, new, threshold, confidence, show_all):
    """Regressions and improvements of NEW against BASE; exit 3 on a regression."""
    t = parse_threshold(threshold)
    new_rows, new_meta = load_rows(new)
    try:
        base_rows, _ = load_rows(base, like=new_meta)
    except NoBaseline as e:
        click.echo(f"t2c: {e}: nothing to compare yet")
        sys.exit(0)
    changes = compare_runs(base_rows, new_rows, t, confidence)
    shown = changes if show_all else [c for c in changes if c.kind != "same"]
    for c in shown:
        click.echo(c.describe())
    counts = {k: sum(c.kind == k for c in changes) for k in ("regression", "improvement", "noise", "same")}
    click.echo(f"{len(changes)} kernel(s) compared at threshold {t * 100:g}%, confidence {confidence}: "
               + ", ".join(f"{n} {k}" for k, n in counts.items()))
    sys.exit(exit_code(changes))


@report_group.command("merge")
@click.argument("dirs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("-o", "--output", "out", required=True, type=click.Path(file_okay=False),
              help="Folder for the merged report.")
@click.option("--history", "history_dir", type=click.Path(file_okay=False), default=None,
              help="Append the merged run to the history under this folder.")
def merge_command(dirs, out, history_dir):
    """Merge shard reports (rows united, meta merged) and render the HTML again."""
    from .merge import merge_reports
    folder = merge_reports(dirs, out, history_dir=history_dir)
    click.echo(f"merged {len(dirs)} report(s) into {folder / 'index.html'}")


@report_group.command("render")
@click.argument("run_dir", type=click.Path(file_okay=False))
@click.option("--history", "history_dir", type=click.Path(file_okay=False), default=None,
              help="Where the history is (default: next to the report, reports/history).")
def render_command(run_dir, history_dir):
    """Write index.html and the kernel pages again from RUN_DIR/results.json."""
    from .publish import rerender
    click.echo(f"wrote {rerender(run_dir, history_dir)}")
