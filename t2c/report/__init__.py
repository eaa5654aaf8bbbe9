"""Reports of a batch run (docs/reports.md).

basic (the Row, CSV/Markdown/JSON/JUnit) -> publish (what a run writes: the folder,
history, CI step summary) -> html + templates/ + charts + highlight (the pages);
history, compare + stats (regressions), merge (shards), summary, environment,
command (`t2c report compare | merge | render`).
"""
