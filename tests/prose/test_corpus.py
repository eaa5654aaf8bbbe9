"""Every spec of corpora/text2cuda through the prose frontend.

Formal specs: the IS validates, its reference (built with gcc) run at MINI on
synthesized inputs matches a numpy implementation of the spec's math written here
(independently of the ```t2c block), and the IS printed as C reads back to the same
key.  Prose-only specs raise NeedsLLM.  A spec added to the corpus without a numpy
implementation here fails, so that none goes unchecked.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from t2c.frontends.c import read_c, reference_file
from t2c.frontends.prose import NeedsLLM, load_spec, read_spec
from t2c.ir import validate
from t2c.ir import HALF_DTYPES
from t2c.verify.halfs import stored, ulp, values
from t2c.verify.inputs import synthesize
from t2c.verify.reference import run_reference

CORPUS = Path(__file__).resolve().parents[2] / "corpora" / "text2cuda"
SPECS = sorted(CORPUS.glob("*.md"))
SPECS = [p for p in SPECS if p.name != "README.md"]
PROSE_ONLY = {"histogram", "stream_compaction"}


def _softmax_parts(X):
    mx = X.max(axis=-1)
    e = np.exp(X - mx[..., None])
    return mx, e.sum(axis=-1), e


def _erf(x):
    return np.vectorize(math.erf)(x)


def _conv2d(inp, wt):
    cout, cin, kh, kw = wt.shape
    _, h, w = inp.shape
    out = np.zeros((cout, h - kh + 1, w - kw + 1))
    for dy in range(kh):
        for dx in range(kw):
            patch = inp[:, dy:dy + h - kh + 1, dx:dx + w - kw + 1]
            out += np.einsum("oc,cyx->oyx", wt[:, :, dy, dx], patch)
    return out


def _pool(inp, reduce):
    c, h, w = inp.shape
    v = inp[:, :h // 2 * 2, :w // 2 * 2].reshape(c, h // 2, 2, w // 2, 2)
    return reduce(v, axis=(2, 4))


def _jacobi(A, B, tsteps):
    A, B = A.copy(), B.copy()
    for _ in range(tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])
    return {"A": A, "B": B}


def _heat1d(u, v, r, tsteps):
    u, v = u.copy(), v.copy()
    for _ in range(tsteps):
        v[1:-1] = u[1:-1] + r * (u[:-2] - 2 * u[1:-1] + u[2:])
        u[1:-1] = v[1:-1]
    return {"u": u, "v": v}


def _gauss_seidel2d(u, b, sweeps):
    """In place, point by point in row order: north and west neighbours already of this sweep."""
    u = u.copy()
    for _ in range(sweeps):
        for i in range(1, u.shape[0] - 1):
            for j in range(1, u.shape[1] - 1):
                u[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] + b[i, j])
    return {"u": u}


def _life(cur, nxt, tsteps):
    cur, nxt = cur.copy(), nxt.copy()
    for _ in range(tsteps):
        s = sum(cur[1 + di:cur.shape[0] - 1 + di, 1 + dj:cur.shape[1] - 1 + dj]
                for di in (-1, 0, 1) for dj in (-1, 0, 1) if di or dj)
        nxt[1:-1, 1:-1] = ((s == 3) | ((cur[1:-1, 1:-1] != 0) & (s == 2))).astype(nxt.dtype)
        cur[1:-1, 1:-1] = nxt[1:-1, 1:-1]
    return {"cur": cur, "nxt": nxt}


def _layer_norm(X, gamma, beta):
    mean = X.mean(axis=1)
    rstd = 1 / np.sqrt(X.var(axis=1) + 1e-5)
    return {"mean": mean, "rstd": rstd, "Y": (X - mean[:, None]) * rstd[:, None] * gamma + beta}


def _attention(Q, K, V, d):
    S = np.einsum("hie,hje->hij", Q, K) / np.sqrt(d)
    mx, den, e = _softmax_parts(S)
    P = e / den[..., None]
    return {"S": S, "mx": mx, "den": den, "P": P, "O": np.einsum("hij,hje->hie", P, V)}


def _cross_entropy(X, target):
    mx, den, _ = _softmax_parts(X)
    lse = mx + np.log(den)
    picked = X[np.arange(len(target)), target]
    return {"mx": mx, "lse": lse, "loss": np.mean(lse - picked)}


def _index_add(src, idx, m):
    out = np.zeros((m, src.shape[1]))
    np.add.at(out, idx, src)
    return out


def _lu_nopivot(a):
    """A = L U in place, unit L below the diagonal, right-looking (float64)."""
    a = np.array(a, dtype=np.float64)
    for k in range(a.shape[0]):
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return a


def _cholesky_right(a):
    """A = L L^T in place, L on and below the diagonal, right-looking (float64)."""
    a = np.array(a, dtype=np.float64)
    for k in range(a.shape[0]):
        a[k, k] = np.sqrt(a[k, k])
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.tril(np.outer(a[k + 1:, k], a[k + 1:, k]))
    return a


def _haar(x):
    y, s = x.copy(), len(x) // 2
    while s > 0:
        a, d = y[0:2 * s:2], y[1:2 * s:2]
        y[:2 * s] = np.concatenate([a + d, a - d]) * np.sqrt(0.5)
        s //= 2
    return {"y": y}


def _iir2(x):
    """The biquad along each row, a column at a time (samples before the first are zero)."""
    y = np.zeros_like(x)
    for j in range(x.shape[1]):
        y[:, j] = 0.2 * x[:, j]
        if j >= 1:
            y[:, j] += 0.3 * x[:, j - 1] + 0.5 * y[:, j - 1]
        if j >= 2:
            y[:, j] -= 0.25 * y[:, j - 2]
    return {"Y": y}


def _mandelbrot(h, w, maxit):
    c = (-2 + 3 * np.arange(w) / w)[None, :] + 1j * (-1.5 + 3 * np.arange(h) / h)[:, None]
    z, count = np.zeros_like(c), np.zeros(c.shape, dtype=np.int64)
    for _ in range(maxit):
        going = np.abs(z) <= 2
        z = np.where(going, z * z + c, z)
        count += going
    return {"count": count}


def _collatz(x, maxit):
    def steps(v):
        it = 0
        while v != 1 and it < maxit:
            v, it = (v // 2 if v % 2 == 0 else 3 * v + 1), it + 1
        return it
    return {"steps": np.array([steps(int(v)) for v in x])}


def _safe_log(x):
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.log(x)
    return {"y": np.where(np.isnan(v), 0.0, np.where(np.isinf(v), -100.0, v))}


def _round_half_away(v):
    return np.trunc(v + np.copysign(0.5, v))


def _xorshift32(s):
    s = s.astype(np.uint64)
    for shift in (13, -17, 5):
        s ^= (s << shift if shift > 0 else s >> -shift) & 0xFFFFFFFF
    return {"s": s}


def _channels(p):
    p = p.astype(np.uint64)
    return [(p >> (8 * c)) & 255 for c in range(4)]


def _compacted(before, kept):
    """`before` with `kept` at its front: a compaction's target, whose later cells keep their values."""
    out = before.copy()
    out[:len(kept)] = kept
    return out


def _threshold_select(a):
    keep = a["x"] > a["t"]
    return {"vals": _compacted(a["vals"], a["x"][keep]), "idx": _compacted(a["idx"], np.flatnonzero(keep)),
            "count": keep.sum()}


def _max_running_sum(x):
    """The best run sum as a difference of prefix sums: the sum up to j less the least sum
    before it (the empty prefix, 0, included)."""
    c = np.cumsum(x)
    before = np.minimum.accumulate(np.concatenate([[0.0], c[:-1]]))
    return {"best": np.max(c - before)}


def _blur_replicate(img, g):
    """A correlation over the image padded by its edge pixels, kk // 2 before and the rest after."""
    kk, (h, w) = g.shape[0], img.shape
    p = kk // 2
    padded = np.pad(img, ((p, kk - 1 - p), (p, kk - 1 - p)), mode="edge")
    return {"out": sum(g[di, dj] * padded[di:di + h, dj:dj + w] for di in range(kk) for dj in range(kk))}


def _maxpool3d(inp, win=5, stride=2):
    v = np.lib.stride_tricks.sliding_window_view(inp, (win, win, win), axis=(1, 2, 3))
    return {"out": v[:, ::stride, ::stride, ::stride].max(axis=(-3, -2, -1))}


def _max_subarray(x):
    """The best x[i] + ... + x[j] as prefix sums: P[j] less the least prefix before j (or 0)."""
    p = np.cumsum(x.astype(np.int64))
    before = np.minimum(0, np.concatenate([[0], np.minimum.accumulate(p)[:-1]]))
    return {"best": (p - before).max()}


def _angle_stats(theta, valid):
    """In float32, as the spec computes (fmod is exact there, so the wrap lands where the reference's does)."""
    turn, half = np.float32(2 * np.pi), np.float32(np.pi)
    r = np.fmod(theta.astype(np.float32), turn)
    w = np.where(np.abs(r) > half, r - np.copysign(turn, r), r)
    keep = valid != 0
    count = keep.sum(axis=1)
    top = np.where(keep, w, -np.inf).max(axis=1)
    total = np.where(keep, w.astype(np.float64), 0.0).sum(axis=1)
    return {"wrapped": w, "peak": np.where(count > 0, top, 0.0),
            "mean": np.where(count > 0, total / np.maximum(count, 1), 0.0)}


def _knn(Q, R, k):
    d2 = ((Q[:, None, :].astype(np.int64) - R[None, :, :]) ** 2).sum(axis=2)
    order = np.argsort(d2, axis=1, kind="stable")[:, :k]
    return {"nbr": order, "dist": np.take_along_axis(d2, order, axis=1)}


#: spec name -> f(inputs as float64 arrays, sizes) -> expected outputs
NUMPY = {
    "relu": lambda a, s: {"y": np.maximum(a["x"], 0)},
    "gelu": lambda a, s: {"y": 0.5 * a["x"] * (1 + _erf(a["x"] / np.sqrt(2)))},
    "gelu_tanh": lambda a, s: {"y": 0.5 * a["x"] * (1 + np.tanh(np.sqrt(2 / np.pi)
                                                         * (a["x"] + 0.044715 * a["x"] ** 3)))},
    "silu": lambda a, s: {"y": a["x"] / (1 + np.exp(-a["x"]))},
    "sigmoid": lambda a, s: {"y": 1 / (1 + np.exp(-a["x"]))},
    "leaky_relu": lambda a, s: {"y": np.where(a["x"] > 0, a["x"], a["slope"] * a["x"])},
    "swiglu": lambda a, s: {"y": a["gate"] / (1 + np.exp(-a["gate"])) * a["up"]},
    "axpy": lambda a, s: {"y": a["a"] * a["x"] + a["y"]},
    "axpy_fp16": lambda a, s: {"y": a["a"] * a["x"] + a["y"]},
    "gelu_bf16": lambda a, s: {"y": 0.5 * a["x"] * (1 + _erf(a["x"] / np.sqrt(2)))},
    "rms_norm_fp16": lambda a, s: {"Y": a["X"] / np.sqrt((a["X"] ** 2).mean(axis=1) + 1e-6)[:, None] * a["w"]},
    "batchnorm_inference": lambda a, s: {"Y": (a["X"] - a["mean"][:, None]) / np.sqrt(
        a["var"][:, None] + 1e-5) * a["gamma"][:, None] + a["beta"][:, None]},
    "sum_reduce": lambda a, s: {"s": a["x"].sum()},
    "max_reduce": lambda a, s: {"m": a["x"].max()},
    "l2_norm": lambda a, s: {"norm": np.linalg.norm(a["x"])},
    "dot": lambda a, s: {"d": a["x"] @ a["y"]},
    "col_sum": lambda a, s: {"s": a["A"].sum(axis=0)},
    "argmax_rows": lambda a, s: {"mx": a["X"].max(axis=1), "idx": a["X"].argmax(axis=1)},
    "gemv": lambda a, s: {"y": a["A"] @ a["x"]},
    "gemm": lambda a, s: {"C": a["alpha"] * a["A"] @ a["B"] + a["beta"] * a["C"]},
    "batched_gemm": lambda a, s: {"C": a["A"] @ a["B"]},
    "linear_relu": lambda a, s: {"Y": np.maximum(a["X"] @ a["W"].T + a["bias"], 0)},
    "transpose": lambda a, s: {"B": a["A"].T},
    "outer": lambda a, s: {"A": np.outer(a["x"], a["y"])},
    "softmax": lambda a, s: (lambda mx, den, e: {"mx": mx, "den": den, "Y": e / den[:, None]})(
        *_softmax_parts(a["X"])),
    "log_softmax": lambda a, s: (lambda mx, den, e: {
        "mx": mx, "lse": mx + np.log(den), "Y": a["X"] - (mx + np.log(den))[:, None]})(
        *_softmax_parts(a["X"])),
    "layer_norm": lambda a, s: _layer_norm(a["X"], a["gamma"], a["beta"]),
    "rms_norm": lambda a, s: (lambda r: {"rinv": r, "Y": a["X"] * r[:, None] * a["w"]})(
        1 / np.sqrt((a["X"] ** 2).mean(axis=1) + 1e-6)),
    "conv1d": lambda a, s: {"y": np.correlate(a["x"], a["w"], mode="valid")},
    "conv2d": lambda a, s: {"out": _conv2d(a["inp"], a["wt"])},
    "maxpool2d": lambda a, s: {"out": _pool(a["inp"], np.max)},
    "avgpool2d": lambda a, s: {"out": _pool(a["inp"], np.mean)},
    "jacobi2d": lambda a, s: _jacobi(a["A"], a["B"], s["tsteps"]),
    "heat1d": lambda a, s: _heat1d(a["u"], a["v"], a["r"], s["tsteps"]),
    "life": lambda a, s: _life(a["cur"], a["nxt"], s["tsteps"]),
    "cross_entropy": lambda a, s: _cross_entropy(a["X"], a["target"]),
    "mse": lambda a, s: {"loss": np.mean((a["pred"] - a["target"]) ** 2)},
    "cumsum_rows": lambda a, s: {"Y": np.cumsum(a["X"], axis=1)},
    "running_total": lambda a, s: {"Y": np.cumsum(a["X"], axis=1)},
    "iir2_rows": lambda a, s: _iir2(a["X"]),
    "gauss_seidel2d": lambda a, s: _gauss_seidel2d(a["u"], a["b"], s["sweeps"]),
    "attention": lambda a, s: _attention(a["Q"], a["K"], a["V"], s["d"]),
    "embedding_gather": lambda a, s: {"out": a["table"][a["ids"]]},
    "upsample_nearest": lambda a, s: {"y": a["x"].repeat(2, axis=1).repeat(2, axis=2)},
    "pixel_shuffle": lambda a, s: {"y": a["x"].reshape(s["c"], 2, 2, s["h"], s["w"]).transpose(0, 3, 1, 4, 2)
                                   .reshape(s["c"], 2 * s["h"], 2 * s["w"])},
    "softmax_let": lambda a, s: (lambda mx, den, e: {"Y": e / den[:, None]})(*_softmax_parts(a["X"])),
    "layer_norm_let": lambda a, s: {"Y": _layer_norm(a["X"], a["gamma"], a["beta"])["Y"]},
    "trmv_upper": lambda a, s: {"y": np.triu(a["A"]) @ a["x"]},
    "trsv_lower": lambda a, s: {"x": np.linalg.solve(np.tril(a["L"]), a["x"])},
    "lu_nopivot": lambda a, s: {"A": _lu_nopivot(a["A"])},
    "cholesky_right": lambda a, s: {"A": _cholesky_right(a["A"])},
    "haar_wavelet": lambda a, s: _haar(a["x"]),
    "sum_tree": lambda a, s: {"s": a["x"].sum()},
    "absmax_tree": lambda a, s: {"m": np.abs(a["x"]).max()},
    "mandelbrot": lambda a, s: _mandelbrot(s["h"], s["w"], s["maxit"]),
    "collatz_steps": lambda a, s: _collatz(a["x"], s["maxit"]),
    "softplus": lambda a, s: {"y": np.where(a["x"] > 20, a["x"], np.log1p(np.exp(np.minimum(a["x"], 20))))},
    "elu": lambda a, s: {"y": np.where(a["x"] > 0, a["x"], a["alpha"] * np.expm1(a["x"]))},
    "normal_cdf": lambda a, s: {"y": 0.5 * np.vectorize(math.erfc)(-a["x"] / np.sqrt(2))},
    "safe_log": lambda a, s: _safe_log(a["x"]),
    "quantize_u8": lambda a, s: {"q": np.clip(_round_half_away(a["x"] / a["scale"]) + a["zero_point"],
                                              0, 255).astype(np.uint8)},
    "rgba_pack": lambda a, s: {"p": sum(a[c].astype(np.uint64) << (8 * i) for i, c in enumerate("rgba"))},
    "rgba_unpack": lambda a, s: (lambda r, g, b, al: {
        "r": r, "g": g, "b": b, "a": al, "gray": (0.299 * r + 0.587 * g + 0.114 * b) / 255})(*_channels(a["p"])),
    "popcount": lambda a, s: {"c": sum((a["x"].astype(np.uint64) >> k) & 1 for k in range(32))},
    "xorshift32": lambda a, s: _xorshift32(a["s"]),
    "first_above": lambda a, s: {"first": np.where((a["X"] > a["t"]).any(axis=1), (a["X"] > a["t"]).argmax(axis=1),
                                                   s["c"])},
    "topk_rows": lambda a, s: (lambda o: {"inds": o, "vals": np.take_along_axis(a["X"], o, axis=1)})(
        np.argsort(-a["X"], axis=1, kind="stable")[:, :s["k"]]),
    "bottomk_rows": lambda a, s: (lambda o: {"inds": o, "vals": np.take_along_axis(a["X"], o, axis=1)})(
        np.argsort(a["X"], axis=1, kind="stable")[:, :s["k"]]),
    "sort_keys": lambda a, s: {"sorted": np.sort(a["keys"])},
    "argsort_rows": lambda a, s: {"order": np.argsort(-a["X"], axis=1, kind="stable")},
    "bincount": lambda a, s: {"counts": np.bincount(a["x"].astype(int), minlength=s["nbins"])},
    "index_add": lambda a, s: {"out": _index_add(a["src"], a["idx"].astype(int), s["m"])},
    "keep_positive": lambda a, s: {"y": _compacted(a["y"], a["x"][a["x"] > 0]), "count": (a["x"] > 0).sum()},
    "nonzero": lambda a, s: {"idx": _compacted(a["idx"], np.flatnonzero(a["x"])), "count": np.count_nonzero(a["x"])},
    "threshold_select": lambda a, s: _threshold_select(a),
    "max_running_sum": lambda a, s: _max_running_sum(a["x"]),
    "gaussian_blur": lambda a, s: _blur_replicate(a["img"], a["g"]),
    "maxpool3d": lambda a, s: _maxpool3d(a["inp"]),
    "max_subarray": lambda a, s: _max_subarray(a["x"]),
    "angle_stats": lambda a, s: _angle_stats(a["theta"], a["valid"]),
    "knn": lambda a, s: _knn(a["Q"], a["R"], s["k"]),
}


def _ids(paths):
    return [p.stem for p in paths]


FORMAL = [p for p in SPECS if p.stem not in PROSE_ONLY]
PROSE = [p for p in SPECS if p.stem in PROSE_ONLY]


def test_corpus_shape():
    assert len(SPECS) >= 30 and len(PROSE) >= 2     # the model path keeps specs of its own
    assert {p.stem for p in PROSE} == PROSE_ONLY


@pytest.mark.parametrize("path", FORMAL, ids=_ids(FORMAL))
def test_formal_spec_matches_numpy(path):
    k = read_spec(path)
    validate(k)
    assert k.origin.file == str(path) and k.name == path.stem
    assert path.stem in NUMPY, f"write a numpy implementation of {path.stem} in this test"
    sizes = k.dataset_sizes("MINI")
    run = run_reference(k, sizes, synthesize(k, sizes, seed=7))
    dtypes = {x.name: x.dtype for x in (*k.scalars, *k.arrays)}
    inputs = {n: values(v, dtypes[n]) if dtypes[n] in HALF_DTYPES else
              np.asarray(v, dtype=np.float64) if np.asarray(v).dtype.kind == "f" else np.asarray(v)
              for n, v in run.inputs.items()}
    expected = NUMPY[path.stem](inputs, sizes)
    outputs = {n: v for n, v in run.outputs.items()}
    assert set(expected) == set(outputs), f"outputs {sorted(outputs)} vs numpy {sorted(expected)}"
    tol = load_spec(path).tolerance or {}
    rtol, atol = max(tol.get("rtol", 1e-5), 1e-5), max(tol.get("atol", 1e-5), 1e-5)
    for name, want in expected.items():
        got = outputs[name]
        assert got.shape == np.shape(want), name
        if dtypes[name] in HALF_DTYPES:
            # numpy's float64 value rounded to the type: the reference's float value, rounded once
            # too, may lie one ulp of the type away from it
            want = values(stored(want, dtypes[name]), dtypes[name])
            got = values(got, dtypes[name])
            assert np.all(np.abs(got - want) <= ulp(want, dtypes[name]) + atol), name
        elif got.dtype.kind in "iu":
            np.testing.assert_array_equal(got, want, err_msg=name)
        else:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=name)


@pytest.mark.parametrize("path", FORMAL, ids=_ids(FORMAL))
def test_round_trip_same_key(path, tmp_path):
    k = read_spec(path)
    c_file = tmp_path / f"{k.name}.c"
    c_file.write_text(reference_file(k))
    assert read_c(c_file).key() == k.key()


@pytest.mark.parametrize("path", PROSE, ids=_ids(PROSE))
def test_prose_only_needs_llm(path):
    spec = load_spec(path)                  # the front matter itself is valid
    assert not spec.blocks and spec.sizes
    with pytest.raises(NeedsLLM) as e:
        read_spec(path)
    assert str(e.value).startswith(f"{path}:1:1: ") and "LLM" in str(e.value)


@pytest.mark.parametrize("path", PROSE, ids=_ids(PROSE))
def test_the_model_reads_the_task_and_no_claim_about_the_language(path):
    """The prose is the model's prompt: it said the formal language could not express the task,
    untrue once `+=` through data and `compact` came; why the spec is prose only is a comment,
    which the model does not read."""
    from t2c.generators.llm.prompts import is_messages
    ask = is_messages(load_spec(path))[1]["content"]
    assert "formal language" not in ask and "prose only" not in ask.lower() and "<!--" not in ask
    assert "positive elements" in ask or "bin" in ask
    assert "Prose only on purpose" in path.read_text()


def test_presets_realistic():
    """MINI is tiny (CPU emulator), LARGE is realistic (>= 10^6 elements of output or
    input, most >= 10^7) for every spec."""
    for path in SPECS:
        spec = load_spec(path)
        for d in ("MINI", "LARGE"):
            assert all(d in p for p in spec.sizes.values()), (path.stem, d)
        from t2c.verify.reference import eval_extent
        for d, most in (("MINI", 20_000), ("LARGE", None)):
            sizes = {s: p[d] for s, p in spec.sizes.items()}
            total = sum(math.prod(eval_extent(e, sizes) for e in a.shape) for a in spec.arrays.values())
            if most:
                assert total <= most, (path.stem, total)
            else:
                assert total >= 10 ** 6, (path.stem, total)
