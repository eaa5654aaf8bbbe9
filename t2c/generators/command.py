"""`t2c gen KERNEL_SOURCE [--function NAME] [--generator poly|llm|hybrid] [-o OUT.cu] [--keep-rejected] [--show-prompt]`.

Takes a kernel (C or a spec; a prose-only spec needs a model to write its IS); writes a
candidate to OUT.cu or stdout. `poly` lowers it (`--evolve` searches its options); `llm` and
`hybrid` evolve candidates against the ladder with a fresh secret seed never shown to the model,
writing one only if the ladder accepted it, else exit 1 naming the best attempt
(`--keep-rejected` keeps it). A file that does not parse or a missing model: exit 2; a failing
endpoint: 6; a poly candidate that does not compile: t2c's bug, exit 4, nothing written.
`llm_options` gives commands their `--llm-FIELD` flags. docs/usage.md, docs/llm.md.
"""
from __future__ import annotations

from pathlib import Path

import click

from .. import config
from ..errors import EXIT_INTERNAL

LLM_HELP = {"base_url": "OpenAI-compatible endpoint, e.g. http://localhost:8000/v1.",
            "model": "Model name the endpoint serves.",
            "api_key_env": "Name of the variable holding the key (never the key itself).",
            "cache": "Response cache: rw | replay | refresh | off.",
            "max_tokens": "Token limit per answer.", "extra_body": "JSON merged into each request."}


def evolve_options(candidates: int, seconds: float, what: str, per: str):
    """--evolve, --evolve-candidates and --evolve-seconds (`t2c gen`, `t2c batch`)."""
    def wrap(f):
        f = click.option("--evolve-seconds", type=click.FloatRange(1), default=seconds, show_default=True,
                         help=f"With --evolve: {per}stop starting candidates after this long.")(f)
        f = click.option("--evolve-candidates", type=click.IntRange(1), default=candidates, show_default=True,
                         help=f"With --evolve: the most candidates{' per kernel' if per else ''} to check.")(f)
        return click.option("--evolve", is_flag=True, help=f"poly: {what}.")(f)
    return wrap


def llm_options(command):
    """--llm-FIELD for every LLMConfig field (docs/llm.md); values are checked by config.load_llm."""
    from dataclasses import fields
    for f in reversed(fields(config.LLMConfig)):
        flag = f"--llm-{f.name.replace('_', '-')}"
        command = click.option(flag, f"llm_{f.name}", default=None, metavar="VALUE",
                               help=LLM_HELP.get(f.name, f"LLM setting {f.name} (docs/llm.md)."))(command)
    return command


def llm_flags(kw: dict) -> dict:
    return {k[4:]: v for k, v in kw.items() if k.startswith("llm_") and v is not None}



@click.command("gen")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--function", help="The kernel function, when the file has several.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Where to write the candidate .cu (default: stdout).")
@click.option("--sequential", is_flag=True, help="One GPU thread for everything (the safe baseline).")
@click.option("--generator", type=click.Choice(["poly", "llm", "hybrid"]), default="poly", show_default=True)
@click.option("--backend", type=click.Choice(["auto", "gpu", "emu"]), default="auto", show_default=True,
              help="Where llm/hybrid candidates are checked.")
@click.option("--keep-rejected", is_flag=True,
              help="llm/hybrid: when no candidate passes, keep the best attempt in OUT.rejected.cu (still exit 1).")
@click.option("--explain", is_flag=True,
              help="poly: print how the candidate maps the kernel and why each loop runs in parallel or in order "
                   "(the dependence, its statements and distance); write nothing.")
@click.option("--show-prompt", is_flag=True,
              help="Print the first request the llm generator would send (no endpoint is called) and stop.")
@evolve_options(12, 900.0, "search its options against the ladder on --backend (bench timings on a GPU; "
                "correctness only on emu) and write the fastest accepted candidate", "")
@llm_options
def gen_command(file, function, output, sequential, generator, backend, keep_rejected, explain, show_prompt,
                evolve, evolve_candidates, evolve_seconds, **llm):
    """Generate a CUDA candidate for a kernel: poly (no model), llm or hybrid."""
    if explain:
        from ..frontends import read_kernel
        from .poly import DEFAULT, explanation
        click.echo(explanation(read_kernel(file, function), DEFAULT.replace(sequential=sequential)), nl=False)
        return
    if show_prompt:
        click.echo(prompt_text(file, function), nl=False)
        return
    if evolve and generator != "poly":
        from ..errors import UserError
        raise UserError("--evolve searches the poly generator's options",
                        hint="llm and hybrid always evolve against the ladder; drop --evolve")
    if evolve:
        k, source = _evolved(file, function, backend, evolve_candidates, evolve_seconds, output)
    elif generator == "poly":
        from ..frontends import read_kernel
        from .poly import DEFAULT, generate
        k = read_kernel(file, function)
        source = generate(k, DEFAULT.replace(sequential=sequential))
        _check_compiles(k, source, output)
        _say_unmodelled(k, file, DEFAULT.replace(sequential=sequential))
    else:
        k, source = _with_model(file, function, generator, backend, config.load_llm(llm_flags(llm)),
                                output, keep_rejected)
    if output:
        Path(output).write_text(source)
        click.echo(f"{k.name}: wrote {output}", err=True)
    else:
        click.echo(source, nl=False)


def prompt_text(file, function) -> str:
    """The messages of the model's first request, each under a `--- ROLE ---` line."""
    from ..frontends import read_kernel
    from ..frontends.prose import NeedsLLM, load_spec
    from .llm.prompts import is_messages, kernel_messages
    try:
        messages = kernel_messages(read_kernel(file, function))
    except NeedsLLM:
        messages = is_messages(load_spec(file))
    return "".join(f"--- {m['role']} ---\n{m['content'].rstrip()}\n" for m in messages)


def _say_unmodelled(k, file, options):
    """A kernel outside poly's model gets a correct candidate in one thread (exit 0); the note on
    stderr names the construct, its file and line, and the generators that can parallelize it."""
    from .poly import unmodelled
    if why := unmodelled(k, options):
        where = k.origin.file if k.origin else file
        click.echo(f"t2c gen: {where}: {k.name} runs in one GPU thread: outside poly's model, {why}; "
                   "`t2c gen --generator llm` or `--generator hybrid` can write a parallel candidate, "
                   "verified against the same reference", err=True)


def _check_compiles(k, source, output):
    """A poly candidate is t2c's own text: one that does not compile is a t2c bug, so it exits 4
    (cli.py) naming the first error, with the candidate and the whole build log in a log file,
    and writes nothing.  Checked with the emu's compiler (no link: seconds, no GPU); without one,
    or for a construct the emu does not model, a note says it was not checked."""
    import shutil
    import sys
    import tempfile
    from ..runtime.emu import settings
    from ..runtime.emu.build import check_compiles, first_error
    name = Path(output).name if output else f"{k.name}.cu"
    if shutil.which(settings.cxx()) is None:
        click.echo(f"t2c gen: {k.name}: not compile-checked ({settings.cxx()} not found)", err=True)
        return
    got = check_compiles(source, name)
    if got.ok:
        return
    if got.unsupported is not None:
        click.echo(f"t2c gen: {k.name}: not compile-checked (the emu does not model {got.unsupported})", err=True)
        return
    fd, log = tempfile.mkstemp(prefix="t2c-crash-", suffix=".log")
    with open(fd, "w") as f:
        f.write(f"{got.command}\n\n{got.log}\n\n/* the candidate ({name}) */\n{source}")
    click.echo(f"t2c: internal error: the poly candidate for {k.name} does not compile: "
               f"{first_error(got.log)}; nothing written; the build log and the candidate are in {log}: "
               f"please report it with that file", err=True)
    sys.exit(EXIT_INTERNAL)


def _evolved(file, function, backend, candidates, seconds, output):
    """The poly options search (generators/evolve); its lineage goes to OUT.evolve.json."""
    import json
    from ..errors import UserError
    from ..frontends import read_kernel
    from ..runtime.ceilings import ensure
    from ..verify.device import resolve_backend
    from ..verify.ladder import default_dataset
    from ..verify.synth import new_seed
    from .evolve import Budget, search
    backend = resolve_backend(backend)
    k = read_kernel(file, function)
    if backend == "gpu":
        ensure(lambda text: click.echo(f"t2c gen: {text}", err=True))
    # the search's own inputs (a fresh seed): `t2c verify` and batches judge on others
    got = search(k, backend=backend, dataset=default_dataset(backend), seed=new_seed(),
                 budget=Budget(candidates, seconds))
    best = got.best
    click.echo(f"{k.name}: {len(got.lineage)} candidate(s) checked on {backend}, {got.duplicates} duplicate(s) "
               f"skipped; {got.stopped}", err=True)
    if best is not None and best.accepted:
        ms = f"{best.kernel_ms:.4g} ms" if best.kernel_ms is not None else "no timing"
        click.echo(f"{k.name}: best: step {best.step} ({best.move}), {ms}", err=True)
    if output:
        Path(output + ".evolve.json").write_text(json.dumps(got.summary(), indent=2, default=str))
    if best is None or not best.accepted:
        raise UserError(f"{k.name}: no candidate passed the ladder ({best.evidence.rung}: {best.evidence.reason})",
                        hint="a poly candidate that fails is a t2c bug: please report it with the kernel")
    return k, best.source


def _with_model(file, function, generator, backend, cfg, output, keep_rejected):
    """The accepted candidate's (kernel, source); exits 1 when the ladder accepted none."""
    import sys
    from ..frontends import read_kernel
    from ..frontends.prose import NeedsLLM, load_spec
    from ..verify.device import resolve_backend
    from ..verify.ladder import default_dataset
    from ..verify.synth import new_seed
    from .llm import generate, write_is
    from .llm.budget import RunBudget
    run = RunBudget(cfg)
    say = lambda text: click.echo(text, err=True)
    try:
        try:
            k = read_kernel(file, function)
        except NeedsLLM:
            k = write_is(load_spec(file), cfg, run=run).kernel
        backend = resolve_backend(backend)
        got = generate(k, cfg, backend=backend, dataset=default_dataset(backend), seed=new_seed(),
                       hybrid=generator == "hybrid", run=run)
    except BaseException:
        say(f"model requests: {run.summary()}")          # what the failure cost
        raise
    for line in got.log:
        say(f"  {line}")
    say(f"{k.name}: {len(got.lineage)} candidate(s), {got.ledger.calls} model call(s), "
        f"{got.ledger.tokens_in + got.ledger.tokens_out} tokens; stopped: {got.stop_reason}")
    say(f"model requests: {run.summary()}")
    best = got.lineage[got.best_step] if got.best_step is not None else None
    if best is not None and best["status"] == "accepted":
        say(f"{k.name}: accepted: step {best['step']} ({best['origin']})")
        return k, got.source
    if best is None:
        why = "the model gave no usable code"
    else:
        why = f"best attempt: step {best['step']} ({best['origin']}), {best['status']}: {best['reason']}"
    if keep_rejected and got.source is not None:
        base = output[:-3] if output and output.endswith(".cu") else output or k.name
        kept = Path(f"{base}.rejected.cu")
        kept.write_text(got.source)
        why += f"; it is kept in {kept}"
    elif got.source is not None:
        why += "; nothing written (--keep-rejected keeps it as OUT.rejected.cu)"
    say(f"t2c: {k.name}: no candidate passed the ladder on {backend} ({got.stop_reason}); {why}")
    sys.exit(1)
