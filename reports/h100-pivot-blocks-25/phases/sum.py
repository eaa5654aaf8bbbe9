"""Sums ncu's per-launch durations by kernel name (the second of the two runs)."""
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]
name, metric, value, unit = (head.index(x) for x in ("Kernel Name", "Metric Name", "Metric Value", "Metric Unit"))
launches = [r for r in rows[1:] if r[metric] == "gpu__time_duration.sum"]
half = launches[len(launches) // 2:]
tot, cnt = collections.Counter(), collections.Counter()
for r in half:
    v = float(r[value].replace(",", "")) * {"ns": 1e-3, "nsecond": 1e-3, "us": 1, "usecond": 1}.get(r[unit], 1e3)
    tot[r[name].split("(")[0]] += v
    cnt[r[name].split("(")[0]] += 1
for k, v in tot.most_common():
    print(f"{k:28s} {cnt[k]:5d} launches {v/1000:9.3f} ms {v/cnt[k]:8.2f} us each")
print(f"{'all':28s} {sum(cnt.values()):5d} launches {sum(tot.values())/1000:9.3f} ms")
