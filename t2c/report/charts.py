"""Charts of a report as inline SVG strings: matplotlib for the index, hand-drawn for the small ones.

Each chart function takes rows (and earlier runs' figures) and returns an `<svg>` element ready
to paste into HTML, or "" when there is nothing to draw. The speedup and roofline charts use
matplotlib's SVG backend (no display, no pyplot state; text kept as text, ids salted per chart);
the evolution curves and sparklines are written directly, being many. Without matplotlib the
index says so and the rest still renders. docs/reports.md, "The pages".
"""
from __future__ import annotations

import io
import math
import re
from html import escape

from .basic import Row

GENERATOR_COLORS = ("#1f6feb", "#d9480f", "#2f9e44", "#9c36b5", "#e8590c", "#0c8599")
RC = {"svg.fonttype": "none", "font.size": 8, "font.family": "sans-serif",
      "axes.spines.top": False, "axes.spines.right": False, "svg.image_inline": True}


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _svg(fig, salt: str, tight: bool = True) -> str:
    import matplotlib
    buf = io.StringIO()
    with matplotlib.rc_context({**RC, "svg.hashsalt": salt}):
        fig.savefig(buf, format="svg", bbox_inches="tight" if tight else None, metadata={"Date": None})
    text = buf.getvalue()
    # keep only the <svg> element; make it scale with the page
    text = text[text.index("<svg"):]
    return re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r'<svg\1 class="chart"', text, count=1)


def _figure(w: float, h: float):
    import matplotlib
    from matplotlib.figure import Figure
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(w, h))
        ax = fig.add_subplot()
    return fig, ax


def colors(generators) -> dict[str, str]:
    return {g: GENERATOR_COLORS[i % len(GENERATOR_COLORS)] for i, g in enumerate(generators)}


def speedup_chart(rows: list[Row], previous: dict[tuple, float] | None = None,
                  baseline: dict[tuple, float] | None = None) -> str:
    """Per-kernel speedup over the CPU reference, log scale; earlier runs as hollow marks."""
    drawn = [r for r in rows if r.speedup and r.speedup > 0]
    if not drawn or not available():
        return ""
    import matplotlib
    gens = sorted({r.generator for r in rows})
    col = colors(gens)
    best = {}
    for r in drawn:
        best[r.kernel] = max(best.get(r.kernel, 0), r.speedup)
    kernels = sorted(best, key=best.get)
    y = {k: i for i, k in enumerate(kernels)}
    with matplotlib.rc_context(RC):
        fig, ax = _figure(7.5, 0.9 + 0.2 * len(kernels))
        offset = {g: (i - (len(gens) - 1) / 2) * 0.18 for i, g in enumerate(gens)}
        for g in gens:
            mine = [r for r in drawn if r.generator == g]
            ax.scatter([r.speedup for r in mine], [y[r.kernel] + offset[g] for r in mine], s=22,
                       color=col[g], label=f"{g} (this run)", zorder=3)
            for earlier, marker, what in ((previous, "o", "previous run"), (baseline, "D", "baseline")):
                pts = [(earlier[(r.kernel, g)], y[r.kernel] + offset[g]) for r in mine
                       if earlier and earlier.get((r.kernel, g))]
                if pts:
                    ax.scatter(*zip(*pts), s=30 if marker == "o" else 18, facecolors="none",
                               edgecolors=col[g], marker=marker, linewidths=0.9,
                               label=f"{g} ({what})", zorder=2)
        ax.axvline(1.0, color="#444", lw=0.8, ls="--", zorder=1)
        ax.text(1.0, len(kernels) - 0.4, " CPU reference = 1×", fontsize=7, color="#444", va="bottom")
        ax.set_xscale("log")
        ax.set_yticks(range(len(kernels)), kernels)
        ax.set_ylim(-0.7, len(kernels) - 0.1)
        ax.set_xlabel("speedup over gcc -O3 reference (kernel time, log scale)")
        ax.grid(axis="x", which="major", color="#ddd", lw=0.5)
        ax.legend(loc="lower right", fontsize=7, frameon=False)
        return _svg(fig, "speedup")


def roofline_chart(rows: list[Row], ceilings: dict | None = None) -> str:
    """Attained TF/s against arithmetic intensity (flop/byte), log-log, with the machine's roofs."""
    pts = [r for r in rows if r.tflops and r.gbps and r.tflops > 0 and r.gbps > 0]
    if not pts or not available():
        return ""
    import matplotlib
    gens = sorted({r.generator for r in rows})
    col = colors(gens)
    ai = lambda r: r.tflops * 1e3 / r.gbps          # flop/byte = (TF/s) / (GB/s) * 1e3
    with matplotlib.rc_context(RC):
        fig, ax = _figure(7.5, 4.2)
        lo = min(ai(r) for r in pts) / 3
        hi = max(ai(r) for r in pts) * 3
        bw, peak = (ceilings or {}).get("gbps"), (ceilings or {}).get("tflops")
        if bw and peak:
            knee = peak * 1e3 / bw
            lo, hi = min(lo, knee / 10), max(hi, knee * 10)
            xs = [lo, knee, hi]
            ax.plot(xs, [min(peak, x * bw / 1e3) for x in xs], color="#222", lw=1.2,
                    label=f"roof: {bw:.0f} GB/s, {peak:.3g} TF/s")
        for g in gens:
            mine = [r for r in pts if r.generator == g]
            if mine:
                ax.scatter([ai(r) for r in mine], [r.tflops for r in mine], s=18, color=col[g],
                           label=g, zorder=3)
        for r in pts:
            ax.annotate(r.kernel, (ai(r), r.tflops), fontsize=6, xytext=(3, 2),
                        textcoords="offset points", color="#555")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(lo, hi)
        ax.set_xlabel("arithmetic intensity (flop/byte)")
        ax.set_ylabel("attained TF/s")
        ax.grid(which="major", color="#ddd", lw=0.5)
        ax.legend(loc="lower right", fontsize=7, frameon=False)
        return _svg(fig, "roofline")


def evolution_chart(row: Row) -> str:
    """Kernel time of each evolution step (accepted dots, rejected crosses) and the best so far.

    Drawn by hand rather than with matplotlib: every kernel page has one, and at ~0.1 s a
    matplotlib figure would dominate the time a report of a large corpus takes."""
    steps = sorted((e for e in row.evolution if isinstance(e, dict) and "step" in e), key=lambda e: e["step"])
    timed = [e for e in steps if e.get("kernel_ms")]
    if not timed:
        return ""
    w, h, left, right, top, bottom = 640, 220, 56, 120, 12, 38
    x_max = max(e["step"] for e in steps) or 1
    y_top, y_step = _nice_axis(max(e["kernel_ms"] for e in timed))
    X = lambda v: left + (w - left - right) * v / x_max
    Y = lambda v: h - bottom - (h - top - bottom) * min(v, y_top) / y_top
    out = [f'<svg class="chart evolution" viewBox="0 0 {w} {h}" xmlns="http://www.w3.org/2000/svg" '
           f'font-family="sans-serif" font-size="11">']
    for i in range(int(round(y_top / y_step)) + 1):
        y = Y(i * y_step)
        out.append(f'<line x1="{left}" x2="{w - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
                   f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#444">{i * y_step:.4g}</text>')
    every = max(1, math.ceil(x_max / 10))
    for v in range(0, x_max + 1, every):
        out.append(f'<text x="{X(v):.1f}" y="{h - bottom + 15}" text-anchor="middle" fill="#444">{v}</text>')
    out.append(f'<line x1="{left}" x2="{w - right}" y1="{h - bottom}" y2="{h - bottom}" stroke="#333"/>'
               f'<line x1="{left}" x2="{left}" y1="{top}" y2="{h - bottom}" stroke="#333"/>'
               f'<text x="{(left + w - right) / 2}" y="{h - 4}" text-anchor="middle">evolution step</text>'
               f'<text transform="translate(14 {(top + h - bottom) / 2}) rotate(-90)" text-anchor="middle">'
               f'kernel ms</text>')
    best, pts = math.inf, []
    for e in steps:
        if e.get("status", "accepted") == "accepted" and e.get("kernel_ms"):
            best = min(best, e["kernel_ms"])
        if best < math.inf:
            pts.append((X(e["step"]), Y(best)))
    if pts:
        path = f"M{pts[0][0]:.1f},{pts[0][1]:.1f}" + "".join(
            f"H{x:.1f}V{y:.1f}" for x, y in pts[1:])
        out.append(f'<path d="{path}" fill="none" stroke="#1f6feb" stroke-width="1.6"/>')
    for e in steps:
        ok = e.get("status", "accepted") == "accepted"
        x, y = X(e["step"]), Y(e.get("kernel_ms") or y_top)
        tip = escape(f"step {e['step']}: {e.get('status', 'accepted')}"
                     + (f", {e['kernel_ms']:.4g} ms" if e.get("kernel_ms") else ""))
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="#2f9e44"><title>{tip}</title></circle>' if ok
                   else f'<path d="M{x - 3.5:.1f},{y - 3.5:.1f}l7,7m0,-7l-7,7" stroke="#c92a2a" stroke-width="1.6">'
                        f'<title>{tip}</title></path>')
    lx = w - right + 14
    out.append(f'<circle cx="{lx}" cy="{top + 8}" r="3.5" fill="#2f9e44"/><text x="{lx + 10}" y="{top + 12}">accepted</text>'
               f'<path d="M{lx - 3.5},{top + 21.5}l7,7m0,-7l-7,7" stroke="#c92a2a" stroke-width="1.6"/>'
               f'<text x="{lx + 10}" y="{top + 29}">rejected</text>'
               f'<line x1="{lx - 5}" x2="{lx + 5}" y1="{top + 42}" y2="{top + 42}" stroke="#1f6feb" stroke-width="1.6"/>'
               f'<text x="{lx + 10}" y="{top + 46}">best so far</text></svg>')
    return "".join(out)


def _nice_axis(high: float) -> tuple[float, float]:
    """A top and a step of 1, 2 or 5 x 10^k giving four or five gridlines above zero."""
    raw = high * 1.05 / 4
    step = 10 ** math.floor(math.log10(raw))
    step *= next(m for m in (1, 2, 5, 10) if raw <= m * step)
    return step * math.ceil(high * 1.05 / step), step


def sparkline(values: list, width: int = 90, height: int = 18) -> str:
    """A tiny inline SVG of a series (None = a gap); the last point, this run, is marked."""
    pts = [(i, v) for i, v in enumerate(values) if v is not None and v > 0]
    if len(pts) < 2:
        return ""
    logs = [math.log(v) for _, v in pts]
    lo, hi = min(logs), max(logs)
    span = (hi - lo) or 1.0
    n = max(len(values) - 1, 1)
    xy = [(2 + (width - 4) * i / n, height - 2 - (height - 4) * (math.log(v) - lo) / span) for i, v in pts]
    poly = " ".join(f"{x:.1f},{y:.1f}" for x, y in xy)
    title = escape(" → ".join(f"{v:.3g}" for _, v in pts[-8:]) + " ms")
    return (f'<svg class="spark" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
            f"<title>{title}</title>"
            f'<polyline points="{poly}" fill="none" stroke="#1f6feb" stroke-width="1.2"/>'
            f'<circle cx="{xy[-1][0]:.1f}" cy="{xy[-1][1]:.1f}" r="2" fill="#d9480f"/></svg>')
