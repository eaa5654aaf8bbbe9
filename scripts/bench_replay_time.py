"""What the bench stage saves by replaying the verify stage's full case (synth.replay_case) instead of
synthesizing the full rung again (build_suite with points=0), per kernel at LARGE, on the CPU:
    python scripts/bench_replay_time.py lu covariance gemm heat-3d gramschmidt
"""
import glob, sys, time
from t2c.frontends import read_kernel
from t2c.verify.synth import build_suite, replay_case
seed = 43323920407458
for name in sys.argv[1:]:
    k = read_kernel(glob.glob(f"corpora/polybench/**/{name}/{name}.c", recursive=True)[0])
    t = time.monotonic()
    s = build_suite(k, seed, dataset="LARGE", backend="gpu", points=0)
    full = s.of("full")
    t1 = time.monotonic() - t
    if not full:
        print(name, f"suite {t1:.1f} s, no full case", flush=True); continue
    t = time.monotonic()
    c = replay_case(k, full[0].summary())
    t2 = time.monotonic() - t
    same = all((c.inputs[n] == full[0].inputs[n]).all() for n in c.inputs)
    print(f"{name}: bench suite as before {t1:.1f} s ({len(s.discarded)} draws discarded); replay {t2:.1f} s; same inputs {same}", flush=True)
