"""The poly lowering: an IS kernel and options in, CUDA candidate text out.

`lower(kernel, options, target)` reads top to bottom, one line per pass.  Every transforming
pass is checked against the reference's exact dependences, so the result computes
what the reference computes; where the polyhedral model does not apply (`NotAffine`)
the candidate is the whole reference in one thread, which is always correct.
"""
from __future__ import annotations

from ... import config
from ...analysis import Loop, NotAffine, analyze_program, build_program, calls_with_arrays
from ...analysis.isl_bridge import BudgetExceeded, budget
from ...ir import Kernel
from ...runtime.target import SM90, Target
from . import compact, geometric, network, wavetiles
from .cuda import Printer, sequential_candidate
from .expand import expand
from .forms import formed
from .mapping import Plan, contiguous_on_grid, map_to_grid, serial_depth
from .options import DEFAULT, PolyOptions
from .phases import phases_of
from .running import running_sums
from .schedule import copy_inputs, isl_tree, variants
from .transform import distribute, fuse, fused_pair, parallel, permute, sink_inits, wavefront


class LoweringError(RuntimeError):
    """A pass produced an illegal schedule: a bug in t2c, never a property of the kernel."""


#: The deepest loop nest poly analyzes: its passes try orders and legality over every loop of a
#: nest (isl work grows much faster than the depth); deeper nests run in one thread, and say so.
MAX_NEST_DEPTH = 12


def lower(kernel: Kernel, options: PolyOptions = DEFAULT, target: Target = SM90) -> str:
    if options.sequential:
        return sequential_candidate(kernel, "the options ask for one thread", options.pool)
    try:
        with budget(config.load().isl_budget):
            return _lower(kernel, options, target)
    except BudgetExceeded as e:
        return sequential_candidate(kernel, f"the polyhedral analysis ran past its budget ({e}; "
                                            "T2C_ISL_BUDGET raises it)")


def _lower(kernel: Kernel, options: PolyOptions, target: Target) -> str:
    try:
        program = build_program(kernel)                  # the polyhedral model
        if (deep := _deepest(program.body)) and len(deep) > MAX_NEST_DEPTH:   # before its dependences
            return sequential_candidate(kernel, f"the loop nest of {', '.join(l.var for l in deep[:4])}, ... is "
                                                f"{len(deep)} loops deep, past poly's {MAX_NEST_DEPTH}")
        an = analyze_program(program)                    # exact dependences and loop facts
    except NotAffine as e:
        return _outside(kernel, options, target, e)
    if options.networks and (net := geometric.networked(kernel, program, target)):
        return network.candidate(kernel, net, options, geometric.NETWORK)   # level loops: as the networks ran them
    an, plan = final_plan(an, options, target)           # what runs where
    if why := geometric.misplaced(plan):                 # a geometric counter only as its header runs it
        return sequential_candidate(kernel, why)
    return Printer(kernel, an, plan, options, target).candidate()   # kernels, NAME_device, the drop-in NAME


#: What the one-thread candidate of a kernel outside the model adds to its reason.
TO_A_MODEL = ("A model can write a parallel candidate from this kernel: `t2c gen --generator llm` or "
              "`hybrid` (verified against the same reference)")


def _outside(kernel: Kernel, options: PolyOptions, target: Target, e: NotAffine) -> str:
    """The candidate for a kernel the model refused: a form that takes it, else the reference in
    one thread, whose header names the construct and the generators that can parallelize it."""
    return _formed_outside(kernel, options, target, e) or \
        sequential_candidate(kernel, f"not affine: {e}. {TO_A_MODEL}")


def _formed_outside(kernel: Kernel, options: PolyOptions, target: Target, e: NotAffine) -> str | None:
    """Its compaction loop as a scan, or host control around exchange loops; None: neither. Both
    read the body as written, so neither takes a call that passes an array (the helper's accesses
    are unseen)."""
    if calls_with_arrays(kernel):
        return None
    if options.scans.compaction and (c := compact.compaction_of(kernel)):
        return compact.candidate(kernel, c, options, f"not affine: {e}")   # its compaction loop: a scan
    if options.networks and (net := network.network_of(kernel, target)):
        return network.candidate(kernel, net, options, f"The polyhedral model does not apply: {e}")   # host
                                                                              # control, a launch per exchange loop
    return None


def unmodelled(kernel: Kernel, options: PolyOptions = DEFAULT, target: Target = SM90) -> str | None:
    """Why poly's candidate for `kernel` is the reference in one thread because the kernel leaves
    the polyhedral model (the `NotAffine` reason: the construct and its line) and no form takes
    it; None otherwise. `t2c gen` says it, with the generators that can take such a kernel."""
    if options.sequential:
        return None
    try:
        with budget(config.load().isl_budget):
            build_program(kernel)
    except BudgetExceeded:
        return None
    except NotAffine as e:
        return None if _formed_outside(kernel, options, target, e) else str(e)
    return None


def final_plan(an, options: PolyOptions, target: Target = SM90):
    """The program (a variant of `an`'s, when one plans better) and its complete plan: every
    decision made, for the printer to print (forms.formed)."""
    options = geometric.narrowed(an.program, options)    # no pass reads a geometric counter as consecutive
    an, running = running_sums(an, options)              # triangular sums carried across their loop: scans
    plan = planned(an, options)                          # the reference's loops, transformed and mapped
    if running:
        plan.notes.append(f"Running sums: the sums over ranges growing with {', '.join(running)} add "
                          "each term once, onto the previous element (the reference's order of additions).")
    if options.loops.copy_inputs:
        an, plan = with_copies(an, plan, options)        # input-only reads from a copy: fewer loops in order
    if options.loops.expand_private:
        an, plan = expanded(an, plan, options)           # a copy per host iteration of what each fills: no host loop
    if options.loops.isl_schedule:
        an, plan = rescheduled(an, plan, options)        # isl's scheduler: pivots outermost
    if options.reductions.row_blocks and options.reductions.row_joins:
        plan = row_joined(an, plan, options)             # a row's folds and the nests reading them: one block per row
    if options.wavefront:
        plan = wavetiles.tiled(an, plan, options, target)   # a band in tiles: a launch per tile diagonal
    return an, formed(an, plan, options, target)         # each launch's form, shapes and name: what prints


def _deepest(items) -> list:
    """The loops of the deepest nest, outermost first."""
    best = []
    for it in items:
        if isinstance(it, Loop):
            inner = [it] + _deepest(it.body)
            best = inner if len(inner) > len(best) else best
    return best


def planned(an, options: PolyOptions) -> Plan:
    """The reference's loop tree through the passes, each checked, mapped to the grid."""
    tree = an.program.body                               # the reference's own loop tree
    if options.loops.distribute:
        tree = distribute(an, tree, options.loops.distribute.sink_updates)   # one nest per statement group: own mapping each
        tree = sink_inits(an, tree)                      # a scalar's initial value beside its first use
    if options.loops.permute:
        tree = permute(an, tree)                         # parallel loops outward: they become the grid
    if options.loops.fuse:
        tree = fuse(an, tree)                            # re-join nests sharing a grid: fewer launches
    if options.loops.contiguous:
        tree = contiguous_on_grid(an, tree, options.grid.max_dims)   # a band past the grid's reach: x stays on it
    if options.wavefront:
        tree = wavefront(an, tree)                       # skew fully carried 2-d bands: parallel diagonals
    if not an.legal(tree):                               # every pass checked itself; this is the last guard
        raise LoweringError(f"{an.program.kernel.name}: the transformed schedule breaks a dependence")
    return map_to_grid(an, tree, options)                # parallel bands -> launches, carried loops -> host


def with_copies(an, plan: Plan, options: PolyOptions):
    """The program whose input-only reads read copies of their arrays (schedule.copy_inputs)
    when its plan runs strictly fewer loops in order around some statement."""
    v = copy_inputs(an)
    if v is None:
        return an, plan
    other = planned(v, options)
    if serial_depth(other) >= serial_depth(plan):
        return an, plan
    names = ", ".join(f"{c} (of {a})" for c, a in v.program.copies.items())
    other.notes.append(f"Copies: reads that only ever see the values the call passed read copies made "
                       f"before the first launch ({names}); at most {serial_depth(other)} loop(s) run in "
                       f"order around a statement instead of {serial_depth(plan)}.")
    return v, other


def expanded(an, plan: Plan, options: PolyOptions):
    """The program whose arrays that every iteration of a host loop chain fills and reads back
    have a copy per iteration (expand.py) when its plan runs strictly fewer loops in order."""
    v = expand(an, plan)
    if v is None:
        return an, plan
    other = planned(v, options)
    if serial_depth(other) >= serial_depth(plan):
        return an, plan
    names = ", ".join(f"{e} (of {x})" for e, (x, _) in v.program.expanded.items())
    other.notes.append(f"Expanded: each iteration of the host loops around it has its own copy of what it "
                       f"fills and reads back ({names}), in device memory; the last iteration's is copied into "
                       f"the array at the end. At most {serial_depth(other)} loop(s) run in order around a "
                       f"statement instead of {serial_depth(plan)}.")
    return v, other


def rescheduled(an, plan: Plan, options: PolyOptions):
    """isl's schedule of the program (or of a variant: scalars folded into array cells,
    pivot rows split off) instead of the reference's loops when it leaves strictly fewer loops in order
    around some statement, on the host or in a thread: a factorization whose pivot loop
    was inside its parallel loops, a wavefront the loop passes cannot find."""
    best = (an, plan, serial_depth(plan), "")
    if any(_quasi(" ".join((*st.domain, *(x for a in st.accesses for x in a.index))))
           for st in an.program.statements):
        return an, plan          # isl's trees print floor divisions the tree's passes cannot read back
    for v, how in variants(an):
        tree = isl_tree(v)
        if tree is None:
            continue
        if not v.legal(tree):
            raise LoweringError(f"{an.program.kernel.name}: isl's schedule breaks a dependence")
        other = map_to_grid(v, tree, options)
        # at the same depth, a plan with fewer scalars carried between launches (each a
        # one-thread launch an iteration, and no form takes a loop that carries one)
        if (serial_depth(other), _carried(other)) < (best[2], _carried(best[1])):
            best = (v, other, serial_depth(other), how)
    v, p, depth, how = best
    if v is not an or p is not plan:
        p.notes.append(f"Schedule: isl's scheduler (outer parallelism first) rather than the "
                       f"reference's loop order{f' ({how})' if how else ''}: at most {depth} "
                       f"loop(s) run in order around a statement instead of {serial_depth(plan)}.")
    return v, p


def _carried(plan: Plan) -> int:
    return sum(s == "global" for s in plan.storage.values())


def row_joined(an, plan: Plan, options: PolyOptions) -> Plan:
    """The plan with a top-level nest over the rows that folds along them joined with the next
    nest over the same rows that reads what it wrote (a spec's `let mx[r]`, then `Y[r, j]`),
    where that is legal and the joined launch is a block per row (phases.py, rows.py); the
    plan itself when nothing joins."""
    tree, done, i = plan.tree, [], 0
    while i + 1 < len(tree):
        a, b = tree[i], tree[i + 1]
        if isinstance(a, Loop) and isinstance(b, Loop) and _feeds(a, b) \
                and any(isinstance(n, Loop) for n in a.body) and parallel(an, tree, a):
            trial, fused = fused_pair(an, tree, a, b) or (None, None)
            if trial is not None and parallel(an, trial, fused):
                other = map_to_grid(an, trial, options)
                launch = next((l for l in other.launches if l.grid and l.grid[0] is fused), None)
                if launch is not None and len(launch.grid) == 1 and phases_of(an, other.storage, launch):
                    tree = trial
                    done.append(a.var)
                    continue                 # the joined nest may take the next one too
        i += 1
    if not done:
        return plan
    new = map_to_grid(an, tree, options)
    new.notes = plan.notes + [f"Rows: the nests over {', '.join(dict.fromkeys(done))} that fold along a row and those "
                              "after them that read the results are one nest: a block per row runs them in turn."]
    return new


def _feeds(a: Loop, b: Loop) -> bool:
    """Whether nest b reads an array that nest a writes (a row's results its outputs read)."""
    written = {w.name for s in a.statements() for w in s.stmt.writes() if w.index}
    return any(r.name in written for s in b.statements() for r in s.stmt.reads())


def _quasi(text: str) -> bool:
    """Whether isl text has a floor division or a modulo (quasi-affine, model.affine)."""
    return "floor(" in text or " mod " in text
