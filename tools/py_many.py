#!/usr/bin/env python3
"""Engine.analyze_many of N positions of Kalah(4,3) met in random play
(reachable, not over), no database, no book: wall, user and system
seconds of the batch (BENCHMARKS.md, "Python: many positions searched").

    pip install ./crates/kalah-py
    tools/py_many.py 10000
"""
import random, resource, sys, time, tempfile
import kalah
n = int(sys.argv[1])
rng = random.Random(7)
rules = kalah.Rules()
ps = []
while len(ps) < n:
    p = kalah.Position.start(4, 3)
    for _ in range(rng.randint(0, 10)):
        if p.is_over(rules): break
        p = p.play(rng.choice(p.legal_moves(rules)), rules)
    if not p.is_over(rules): ps.append(p)
engine = kalah.Engine(threads=2, db_dir=tempfile.mkdtemp(), book=False)
r0 = resource.getrusage(resource.RUSAGE_SELF); t0 = time.time()
out = engine.analyze_many(ps)
r1 = resource.getrusage(resource.RUSAGE_SELF); t1 = time.time()
print(f"{n} positions: wall {t1-t0:.2f} s, user {r1.ru_utime-r0.ru_utime:.2f} s, sys {r1.ru_stime-r0.ru_stime:.2f} s, {n/(t1-t0):.0f}/s; values sum {sum(a.value for a in out)}")
