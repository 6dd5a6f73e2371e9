#!/usr/bin/env python3
"""hpcc-16 with each sender's start drawn from 10 us + [0, 100] ns (seeds 1-10): jitter/flow-16-jS.txt and
config-hpcc-16-jS.txt. The burst program reads flows in file order, so they are sorted by start time."""
import os
import random

os.makedirs("jitter", exist_ok=True)
base = open("config-hpcc-16.txt").read()
for seed in range(1, 11):
    rnd = random.Random(seed)
    rows = [(10e-6 + rnd.randint(0, 100) * 1e-9, i) for i in range(16)]
    body = [f"{i} 16 3 {10000 + i} 4194304 {t:.9f}" for t, i in sorted(rows)]
    open(f"jitter/flow-16-j{seed}.txt", "w").write("\n".join(["16"] + body) + "\n")
    c = base.replace("FLOW_FILE flow-16.txt", f"FLOW_FILE jitter/flow-16-j{seed}.txt")
    c = c.replace("fct-hpcc-16.txt", f"fct-hpcc-16-j{seed}.txt").replace("pfc-hpcc-16.txt", f"pfc-hpcc-16-j{seed}.txt")
    open(f"config-hpcc-16-j{seed}.txt", "w").write(c)
