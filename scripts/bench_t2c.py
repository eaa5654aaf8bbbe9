#!/usr/bin/env python3
"""Text2CUDA benchmark: t2c's poly candidates against PyTorch eager, spec by spec.

    python scripts/bench_t2c.py OUT_DIR [--dataset LARGE] [--reps 20] [--only NAME ...]
                                        [--corpus corpora/text2cuda] [--check]

For every formal spec of the corpus: read its IS (prose frontend), generate a
candidate with the poly generator, build it for the GPU, and time its kernel
(`run_candidate` bench mode: fresh inputs and an L2 flush before each repetition,
median of the repetitions).  Time PyTorch eager on the same inputs, also with an L2
flush before each repetition, and check that the two agree within the spec's
tolerance.  Prints a table (spec, t2c ms, torch ms, ratio = t2c / torch, agree)
and writes OUT_DIR/bench_t2c.csv and OUT_DIR/bench_t2c.md.

Prose-only specs are listed as needs-llm; a spec with no torch implementation
here, or a candidate that fails to build or run, gets its reason in the table.
PyTorch is a benchmark-only dependency: it is imported by this script alone, and
the script stops with a message when it (or a GPU) is missing.

`--check` needs no GPU: it runs each torch form on the CPU against the host reference's
outputs on the same inputs (default dataset MINI), so that a GPU run's `agree` column holds no
surprise from the torch side.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import csv
import math
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


DEVICE = "cuda"                  # where the torch forms run ("cpu" under --check)


# -- PyTorch eager forms of the formal specs: f(tensors by name, sizes) -> outputs by name --

def torch_impls(torch):
    F = torch.nn.functional

    def softmax_parts(X):
        mx = X.amax(dim=-1)
        e = torch.exp(X - mx[..., None])
        return mx, e.sum(dim=-1), e

    def sort_unsigned(t, s):
        """torch.sort of uint32 keys, or of their int64 values where the device's sort has no uint32"""
        k = t["keys"]
        try:
            return {"sorted": torch.sort(k).values}
        except NotImplementedError:
            return {"sorted": torch.sort(k.long()).values.to(k.dtype)}

    def pool(x, f):
        return f(x[None], 2)[0]

    def jacobi(t, s):
        A, B = t["A"].clone(), t["B"].clone()
        for _ in range(s["tsteps"]):
            B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
            A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])
        return {"A": A, "B": B}

    def layer_norm(t, s):
        X = t["X"]
        var, mean = torch.var_mean(X, dim=1, unbiased=False)
        rstd = torch.rsqrt(var + 1e-5)
        return {"mean": mean, "rstd": rstd, "Y": F.layer_norm(X, (s["d"],), t["gamma"], t["beta"], 1e-5)}

    def attention(t, s):
        S = torch.matmul(t["Q"], t["K"].transpose(1, 2)) / math.sqrt(s["d"])
        mx, den, e = softmax_parts(S)
        P = e / den[..., None]
        return {"S": S, "mx": mx, "den": den, "P": P, "O": torch.matmul(P, t["V"])}

    def cross_entropy(t, s):
        X, tgt = t["X"], t["target"].long()
        mx = X.amax(dim=1)
        lse = torch.logsumexp(X, dim=1)
        return {"mx": mx, "lse": lse, "loss": F.cross_entropy(X, tgt)}

    def softmax(t, s):
        mx, den, _ = softmax_parts(t["X"])
        return {"mx": mx, "den": den, "Y": torch.softmax(t["X"], dim=1)}

    def log_softmax(t, s):
        mx = t["X"].amax(dim=1)
        return {"mx": mx, "lse": torch.logsumexp(t["X"], dim=1), "Y": torch.log_softmax(t["X"], dim=1)}

    def rms_norm(t, s):
        rinv = torch.rsqrt((t["X"] * t["X"]).mean(dim=1) + 1e-6)
        return {"rinv": rinv, "Y": t["X"] * rinv[:, None] * t["w"]}

    def rms_norm_fp16(t, s):         # float statistics over half rows, as mixed-precision code does
        X = t["X"].float()
        rinv = torch.rsqrt((X * X).mean(dim=1) + 1e-6)
        return {"Y": (X * rinv[:, None] * t["w"].float()).half()}

    def first_above(t, s):
        hit = t["X"] > float(t["t"])
        c = t["X"].shape[1]
        cols = torch.arange(c, device=t["X"].device, dtype=torch.int32)
        return {"first": torch.where(hit, cols, c).min(dim=1).values.int()}

    # Integer words are widened to int64 (torch's uint32 has few operations) and masked
    # back to 32 bits where a shift or product could carry past them.
    def channels(t, s):
        p = t["p"].long()
        r, g, b, a = ((p >> (8 * c)) & 255 for c in range(4))
        return {"r": r, "g": g, "b": b, "a": a, "gray": (0.299 * r + 0.587 * g + 0.114 * b) / 255.0}

    def popcount(t, s):
        v = t["x"].long()
        v = v - ((v >> 1) & 0x55555555)
        v = (v & 0x33333333) + ((v >> 2) & 0x33333333)
        v = (v + (v >> 4)) & 0x0F0F0F0F
        return {"c": ((v * 0x01010101) & 0xFFFFFFFF) >> 24}

    def xorshift32(t, s):
        v = t["s"].long()
        v ^= (v << 13) & 0xFFFFFFFF
        v ^= v >> 17
        v ^= (v << 5) & 0xFFFFFFFF
        return {"s": v}

    def argmax_rows(t, s):
        mx, idx = t["X"].max(dim=1)
        return {"mx": mx, "idx": idx.int()}

    def haar(t, s):
        y, h = t["x"].clone(), s["n"] // 2
        while h > 0:
            a, d = y[0:2 * h:2], y[1:2 * h:2]
            y[:2 * h] = torch.cat([a + d, a - d]) * math.sqrt(0.5)
            h //= 2
        return {"y": y}

    def mandelbrot(t, s):
        h, w, dev = s["h"], s["w"], DEVICE
        cr = (-2 + 3 * torch.arange(w, device=dev, dtype=torch.float64) / w)[None, :].expand(h, w)
        ci = (-1.5 + 3 * torch.arange(h, device=dev, dtype=torch.float64) / h)[:, None].expand(h, w)
        zr, zi = torch.zeros_like(cr), torch.zeros_like(ci)
        count = torch.zeros((h, w), device=dev, dtype=torch.int32)
        for _ in range(s["maxit"]):
            going = zr * zr + zi * zi <= 4
            zr, zi = torch.where(going, zr * zr - zi * zi + cr, zr), torch.where(going, 2 * zr * zi + ci, zi)
            count += going.int()
        return {"count": count}

    def collatz(t, s):
        v, steps = t["x"].long(), torch.zeros_like(t["x"])
        for _ in range(s["maxit"]):
            going = v != 1
            v = torch.where(going, torch.where(v % 2 == 0, v // 2, 3 * v + 1), v)
            steps += going.int()
        return {"steps": steps}

    def compacted(before, kept):
        out = before.clone()
        out[:kept.numel()] = kept
        return out

    def count(mask):
        return mask.sum().int()

    def max_running_sum(t, s):
        """the best run sum as prefix sums less the least prefix sum before them (0 included), in double"""
        c = torch.cumsum(t["x"].double(), 0)
        before = torch.cummin(torch.cat([c.new_zeros(1), c[:-1]]), 0).values
        return {"best": (c - before).max().float()}

    def blur_replicate(t, s):
        """edge pixels repeated kk // 2 before and kk - 1 - kk // 2 after, then a correlation"""
        kk = s["kk"]
        p, q = kk // 2, kk - 1 - kk // 2
        img = F.pad(t["img"][None, None], (p, q, p, q), mode="replicate")
        return {"out": F.conv2d(img, t["g"][None, None])[0, 0]}

    def threshold_select(t, s):
        mask = t["x"] > float(t["t"])
        return {"vals": compacted(t["vals"], t["x"][mask]),
                "idx": compacted(t["idx"], torch.nonzero(mask).flatten().int()), "count": count(mask)}

    def max_subarray(t, s):          # prefix sums: P[j] less the least prefix before j (or 0)
        p = torch.cumsum(t["x"].long(), dim=0)
        least = torch.cummin(p, dim=0).values
        before = torch.cat([torch.zeros_like(p[:1]), least[:-1]]).clamp(max=0)
        return {"best": (p - before).max()}

    def angle_stats(t, s):
        turn, half = 2 * math.pi, math.pi
        r = torch.fmod(t["theta"], turn)
        w = torch.where(r.abs() > half, r - torch.copysign(torch.full_like(r, turn), r), r)
        keep = t["valid"] != 0
        top = torch.where(keep, w, -math.inf).amax(dim=1)
        avg = torch.where(keep, w, 0.0).sum(dim=1) / keep.sum(dim=1)
        return {"wrapped": w, "peak": torch.where(torch.isinf(top), 0.0, top),
                "mean": torch.nan_to_num(avg, nan=0.0)}

    def knn(t, s):                   # exact squared distances (small integers in float32), ties by index
        Q, R = t["Q"].float(), t["R"].float()
        d2 = ((Q * Q).sum(dim=1)[:, None] + (R * R).sum(dim=1)[None, :] - 2.0 * (Q @ R.T)).round().int()
        vals, idx = torch.sort(d2, dim=1, stable=True)
        return {"nbr": idx[:, :s["k"]].int(), "dist": vals[:, :s["k"]]}

    return {
        "max_subarray": max_subarray,
        "angle_stats": angle_stats,
        "knn": knn,
        "keep_positive": lambda t, s: {"y": compacted(t["y"], t["x"][t["x"] > 0]), "count": count(t["x"] > 0)},
        "nonzero": lambda t, s: {"idx": compacted(t["idx"], torch.nonzero(t["x"]).flatten().int()),
                                 "count": count(t["x"] != 0)},
        "threshold_select": threshold_select,
        "max_running_sum": max_running_sum,
        "gaussian_blur": blur_replicate,
        "maxpool3d": lambda t, s: {"out": F.max_pool3d(t["inp"][None], 5, stride=2)[0]},
        "softmax_let": lambda t, s: {"Y": torch.softmax(t["X"], dim=1)},
        "layer_norm_let": lambda t, s: {"Y": F.layer_norm(t["X"], (s["c"],), t["gamma"], t["beta"], 1e-5)},
        "trmv_upper": lambda t, s: {"y": torch.mv(torch.triu(t["A"]), t["x"])},
        "sum_tree": lambda t, s: {"s": t["x"].sum()},
        "absmax_tree": lambda t, s: {"m": t["x"].abs().max()},
        "haar_wavelet": haar,
        "mandelbrot": mandelbrot,
        "collatz_steps": collatz,
        "relu": lambda t, s: {"y": torch.relu(t["x"])},
        "gelu": lambda t, s: {"y": F.gelu(t["x"])},
        "gelu_tanh": lambda t, s: {"y": F.gelu(t["x"], approximate="tanh")},
        "silu": lambda t, s: {"y": F.silu(t["x"])},
        "sigmoid": lambda t, s: {"y": torch.sigmoid(t["x"])},
        "leaky_relu": lambda t, s: {"y": F.leaky_relu(t["x"], float(t["slope"]))},
        "swiglu": lambda t, s: {"y": F.silu(t["gate"]) * t["up"]},
        "axpy": lambda t, s: {"y": torch.add(t["y"], t["x"], alpha=float(t["a"]))},
        "axpy_fp16": lambda t, s: {"y": torch.add(t["y"], t["x"], alpha=float(t["a"]))},
        "gelu_bf16": lambda t, s: {"y": F.gelu(t["x"])},
        "rms_norm_fp16": rms_norm_fp16,
        "batchnorm_inference": lambda t, s: {"Y": F.batch_norm(
            t["X"], t["mean"], t["var"], t["gamma"], t["beta"], False, 0.0, 1e-5)},
        "sum_reduce": lambda t, s: {"s": t["x"].sum()},
        "max_reduce": lambda t, s: {"m": t["x"].max()},
        "l2_norm": lambda t, s: {"norm": torch.linalg.vector_norm(t["x"])},
        "dot": lambda t, s: {"d": torch.dot(t["x"], t["y"])},
        "col_sum": lambda t, s: {"s": t["A"].sum(dim=0)},
        "argmax_rows": argmax_rows,
        "gemv": lambda t, s: {"y": torch.mv(t["A"], t["x"])},
        "gemm": lambda t, s: {"C": torch.addmm(t["C"], t["A"], t["B"], beta=float(t["beta"]),
                                               alpha=float(t["alpha"]))},
        "batched_gemm": lambda t, s: {"C": torch.bmm(t["A"], t["B"])},
        "linear_relu": lambda t, s: {"Y": torch.relu(F.linear(t["X"], t["W"], t["bias"]))},
        "transpose": lambda t, s: {"B": t["A"].t().contiguous()},
        "outer": lambda t, s: {"A": torch.outer(t["x"], t["y"])},
        "softmax": softmax,
        "log_softmax": log_softmax,
        "layer_norm": layer_norm,
        "rms_norm": rms_norm,
        "conv1d": lambda t, s: {"y": F.conv1d(t["x"][None, None], t["w"][None, None])[0, 0]},
        "conv2d": lambda t, s: {"out": F.conv2d(t["inp"][None], t["wt"])[0]},
        "maxpool2d": lambda t, s: {"out": pool(t["inp"], F.max_pool2d)},
        "avgpool2d": lambda t, s: {"out": pool(t["inp"], F.avg_pool2d)},
        "jacobi2d": jacobi,
        "cross_entropy": cross_entropy,
        "mse": lambda t, s: {"loss": F.mse_loss(t["pred"], t["target"])},
        "cumsum_rows": lambda t, s: {"Y": torch.cumsum(t["X"], dim=1)},
        "running_total": lambda t, s: {"Y": torch.cumsum(t["X"], dim=1)},
        "attention": attention,
        "embedding_gather": lambda t, s: {"out": F.embedding(t["ids"].long(), t["table"])},
        "upsample_nearest": lambda t, s: {"y": F.interpolate(t["x"][None], scale_factor=2, mode="nearest")[0]},
        "pixel_shuffle": lambda t, s: {"y": F.pixel_shuffle(t["x"][None], 2)[0]},
        "first_above": first_above,
        "topk_rows": lambda t, s: (lambda r: {"vals": r.values, "inds": r.indices.int()})(torch.topk(t["X"], s["k"], dim=1)),
        # the spec's ties are by index (a stable sort); torch.topk orders ties in no documented way
        "bottomk_rows": lambda t, s: (lambda r: {"vals": r.values[:, :s["k"]], "inds": r.indices[:, :s["k"]].int()})(
            torch.sort(t["X"], dim=1, stable=True)),
        "sort_keys": sort_unsigned,
        "argsort_rows": lambda t, s: {"order": torch.argsort(t["X"], dim=1, descending=True, stable=True).int()},
        "bincount": lambda t, s: {"counts": torch.bincount(t["x"].long(), minlength=s["nbins"]).int()},
        "index_add": lambda t, s: {"out": torch.zeros(s["m"], s["d"], device=t["src"].device,
                                                      dtype=t["src"].dtype).index_add_(0, t["idx"].long(), t["src"])},
        "softplus": lambda t, s: {"y": F.softplus(t["x"])},
        "elu": lambda t, s: {"y": F.elu(t["x"], alpha=float(t["alpha"]))},
        "normal_cdf": lambda t, s: {"y": torch.special.ndtr(t["x"])},
        "safe_log": lambda t, s: {"y": torch.nan_to_num(torch.log(t["x"]), nan=0.0, neginf=-100.0)},
        "quantize_u8": lambda t, s: {"q": torch.clamp(torch.round(t["x"] / float(t["scale"]))
                                                      + int(t["zero_point"]), 0, 255).to(torch.uint8)},
        "rgba_pack": lambda t, s: {"p": t["r"].long() | t["g"].long() << 8 | t["b"].long() << 16
                                   | t["a"].long() << 24},
        "rgba_unpack": channels,
        "popcount": popcount,
        "xorshift32": xorshift32,
    }


# -- timing ---------------------------------------------------------------------------------

def time_torch(torch, fn, tensors, sizes, reps):
    """(every repetition's ms, the last output) of fn, each after an L2 flush (as the candidate
    harness does)."""
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    for _ in range(2):
        out = fn(tensors, sizes)
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        flush.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        out = fn(tensors, sizes)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return times, out


def agree(np, got: dict, want: dict, tol: dict | None, dtypes: dict | None = None) -> str:
    """Whether torch's outputs agree with ours; `dtypes` (output -> IS dtype) reads 16-bit ones."""
    from t2c.verify.halfs import values
    dtypes = dtypes or {}
    #: one ulp of a 16-bit output (2u, u its unit roundoff): what rounding a float result may differ by
    one_ulp = {"__half": 2.0 ** -10, "__nv_bfloat16": 2.0 ** -7}
    bad = []
    for name, w in want.items():
        g = got.get(name)
        if g is None:
            bad.append(f"{name}: the spec has no output of that name")
            continue
        rtol = (tol or {}).get("rtol", one_ulp.get(dtypes.get(name), 1e-4))
        atol = (tol or {}).get("atol", 1e-5)
        w = w.detach().float().cpu().numpy() if hasattr(w, "detach") else np.asarray(w)
        if g.shape != w.shape:
            bad.append(f"{name}: shape {g.shape} vs {w.shape}")
        else:
            # norm-wise: elementwise rtol is meaningless where sums cancel to near zero
            g64 = values(g, dtypes[name]) if dtypes.get(name) in one_ulp else g.astype(np.float64)
            w64 = w.astype(np.float64)
            err = float(np.max(np.abs(g64 - w64))) if g64.size else 0.0
            scale = float(np.max(np.abs(w64))) if w64.size else 0.0
            if not err <= max(atol, 1e-5) + max(rtol, 1e-5) * scale:
                bad.append(f"{name}: max abs err {err:.3g} (max |value| {scale:.3g})")
    if not want:
        bad.append("the torch form returns nothing")
    return "yes" if not bad else "NO (" + "; ".join(bad) + ")"


def _row(path, args, note: str = "") -> dict:
    return {"spec": path.stem, "dataset": args.dataset, "t2c_ms": "", "t2c_p20_p80": "", "torch_ms": "",
            "torch_p20_p80": "", "ratio": "", "agree": "", "note": note}


def built(path):
    """(kernel, candidate build) of a formal spec, or a note why there is none.  Generating and
    building need no GPU: main runs them for every spec at once before any timing."""
    from t2c.frontends.prose import NeedsLLM, read_spec
    from t2c.runtime.build import BuildError
    from t2c.verify.harness import build_candidate

    try:
        k = read_spec(path)
    except NeedsLLM:
        return "needs-llm (prose only)"
    generate = candidate_generator()
    if generate is None:
        return "skipped: t2c.generators has no poly generator in this checkout"
    try:
        return k, build_candidate(k, generate(k), "gpu")
    except BuildError as e:
        return f"build failed: {str(e)[:120]}"
    except Exception as e:                       # a generator bug: report, keep benchmarking
        return f"generator failed: {type(e).__name__}: {str(e)[:120]}"


def _built_or_error(path):
    try:
        return built(path)
    except Exception as e:                       # one spec's failure never stops the table
        return f"error: {type(e).__name__}: {str(e)[:160]}"


def bench_one(path, args, torch, np, impls, made=None):
    from t2c.verify.harness import run_candidate
    from t2c.verify.inputs import synthesize

    made = made or built(path)
    if isinstance(made, str):
        return _row(path, args, made)
    (k, build), row = made, _row(path, args)
    sizes = k.dataset_sizes(args.dataset)
    inputs = synthesize(k, sizes, seed=args.seed)
    run = run_candidate(k, build, sizes, inputs, mode="bench", reps=args.reps, timeout=args.timeout)
    if not run.process.ok or not run.kernel_ms:
        row["note"] = f"run failed: {run.process.describe()}"
        return row
    row["t2c_ms"], row["t2c_p20_p80"] = statistics.median(run.kernel_ms), spread(run.kernel_ms)
    impl = impls.get(k.name)
    if impl is None:
        row["note"] = "no torch implementation in bench_t2c.py"
        return row
    times, row["ratio"], row["agree"] = _against_torch(torch, np, impl, k, inputs, sizes, args,
                                                       run.outputs, row["t2c_ms"], path)
    row["torch_ms"], row["torch_p20_p80"] = statistics.median(times), spread(times)
    return row


def spread(times) -> str:
    """The 20th and 80th percentiles of repeated timings, ms."""
    q = statistics.quantiles(times, n=10) if len(times) > 1 else [times[0]] * 9
    return f"{q[1]:.4g}-{q[7]:.4g}"


def _tensors(torch, np, inputs: dict, k) -> dict:
    dtypes = _dtypes(k)
    return {n: as_tensor(torch, np, v, dtypes[n]) for n, v in inputs.items()}


def _dtypes(k) -> dict:
    return {x.name: x.dtype for x in (*k.scalars, *k.arrays)}


def _against_torch(torch, np, impl, k, inputs, sizes, args, outputs, t2c_ms, path):
    """(torch's ms per repetition, t2c / torch of the medians, agree) of the torch form on the same inputs."""
    from t2c.frontends.prose import load_spec
    tensors = _tensors(torch, np, inputs, k)
    times, want = time_torch(torch, impl, tensors, sizes, args.reps)
    torch_ms = statistics.median(times)
    return times, t2c_ms / torch_ms if torch_ms else "", agree(np, outputs, want, load_spec(path).tolerance,
                                                                  _dtypes(k))


def check_one(path, args, torch, np, impls):
    """The torch form on the CPU against the host reference's outputs (--check)."""
    from t2c.frontends.prose import NeedsLLM, load_spec, read_spec
    from t2c.verify.inputs import synthesize
    from t2c.verify.reference import run_reference

    row = _row(path, args)
    try:
        k = read_spec(path)
    except NeedsLLM:
        row["note"] = "needs-llm (prose only)"
        return row
    if (impl := impls.get(k.name)) is None:
        row["note"] = "no torch implementation in bench_t2c.py"
        return row
    sizes = k.dataset_sizes(args.dataset)
    inputs = synthesize(k, sizes, seed=args.seed)
    ref = run_reference(k, sizes, inputs, timeout=args.timeout)
    want = impl(_tensors(torch, np, inputs, k), sizes)
    row["agree"] = agree(np, ref.outputs, want, load_spec(path).tolerance, _dtypes(k))
    return row


def as_tensor(torch, np, v, dtype: str):
    """An input on DEVICE as torch holds it (a bfloat16 array arrives as its bit pattern)."""
    if dtype == "__nv_bfloat16":
        bits = torch.as_tensor(np.ascontiguousarray(np.asarray(v).view(np.int16))).to(DEVICE)
        return bits.view(torch.bfloat16) if np.ndim(v) else bits.view(torch.bfloat16).item()
    return torch.as_tensor(np.ascontiguousarray(v)).to(DEVICE) if np.ndim(v) else v.item()


def candidate_generator():
    """`generate(kernel) -> .cu text` of the poly generator, or None when it is missing."""
    try:
        from t2c.generators import generate
        return lambda k: generate(k, "poly")
    except ImportError:
        pass
    try:
        from t2c.generators.poly import generate
        return generate
    except ImportError:
        return None


def fmt(v, digits=4):
    return f"{v:.{digits}g}" if isinstance(v, float) else str(v)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="folder for bench_t2c.csv and bench_t2c.md")
    ap.add_argument("--corpus", type=Path, default=ROOT / "corpora" / "text2cuda")
    ap.add_argument("--dataset", default=None, help="LARGE (MINI with --check)")
    ap.add_argument("--check", action="store_true",
                    help="no GPU: the torch forms on the CPU against the host reference")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--only", nargs="*", help="spec names to run (default: all)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="candidates generated and built at once before the timings (one at a time)")
    args = ap.parse_args(argv)
    args.dataset = args.dataset or ("MINI" if args.check else "LARGE")

    try:
        import numpy as np
        import torch
    except ImportError:
        print("bench_t2c: PyTorch is not installed; it is needed for the comparison only "
              "(pip install torch)", file=sys.stderr)
        return 2
    global DEVICE
    DEVICE = "cpu" if args.check else "cuda"
    if not args.check and not torch.cuda.is_available():
        print("bench_t2c: no CUDA device visible to PyTorch; run this on a GPU machine", file=sys.stderr)
        return 2
    if candidate_generator() is None:
        print("bench_t2c: t2c.generators has no poly generator yet; nothing to compare", file=sys.stderr)

    # fp32 means fp32: no TF32 tensor-core shortcuts in the baseline
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    impls = torch_impls(torch)
    specs = sorted(p for p in args.corpus.glob("*.md") if p.name != "README.md")
    if args.only:
        specs = [p for p in specs if p.stem in set(args.only)]
    rows = []
    header = f"{'spec':22s} {'t2c ms':>10s} {'torch ms':>10s} {'ratio':>8s}  agree / note"
    print(header)
    print("-" * len(header))
    made = {}
    if not args.check:                           # every candidate built first, in parallel; timed one by one
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            made = dict(zip(specs, pool.map(_built_or_error, specs)))
    for path in specs:
        t0 = time.time()
        try:
            row = check_one(path, args, torch, np, impls) if args.check \
                else bench_one(path, args, torch, np, impls, made[path])
        except Exception as e:                   # one spec's failure never stops the table
            row = _row(path, args, f"error: {type(e).__name__}: {str(e)[:160]}")
        row["seconds"] = round(time.time() - t0, 1)
        rows.append(row)
        print(f"{row['spec']:22s} {fmt(row['t2c_ms']):>10s} {fmt(row['torch_ms']):>10s} "
              f"{fmt(row['ratio'], 3):>8s}  {row['agree']} {row['note']}".rstrip(), flush=True)

    args.out.mkdir(parents=True, exist_ok=True)
    fields = ["spec", "dataset", "t2c_ms", "t2c_p20_p80", "torch_ms", "torch_p20_p80", "ratio", "agree", "note",
              "seconds"]
    with open(args.out / "bench_t2c.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    ratios = [r["ratio"] for r in rows if isinstance(r["ratio"], float) and r["ratio"] > 0]
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else None
    where = "CPU check against the host reference" if args.check else f"GPU: {torch.cuda.get_device_name(0)}"
    md = [f"# t2c vs PyTorch eager ({args.dataset}, median of {args.reps})", "",
          f"{where}; torch {torch.__version__}. "
          "ratio = t2c ms / torch ms (below 1: t2c is faster).", "",
          "| spec | t2c ms (p20-p80) | torch ms (p20-p80) | ratio | agree | note |", "|---|---:|---:|---:|---|---|"]
    md += [f"| {r['spec']} | {fmt(r['t2c_ms'])} ({r['t2c_p20_p80']}) | {fmt(r['torch_ms'])} ({r['torch_p20_p80']}) | "
           f"{fmt(r['ratio'], 3)} | "
           f"{r['agree']} | {r['note']} |" for r in rows]
    if geo:
        md += ["", f"Geometric mean ratio over {len(ratios)} specs: {geo:.3g}"]
    (args.out / "bench_t2c.md").write_text("\n".join(md) + "\n")
    if geo:
        print(f"\ngeometric mean ratio (t2c/torch) over {len(ratios)} specs: {geo:.3g}")
    print(f"wrote {args.out / 'bench_t2c.csv'} and {args.out / 'bench_t2c.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
