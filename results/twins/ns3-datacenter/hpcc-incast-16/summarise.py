#!/usr/bin/env python3
"""One line per run: last flow's finish, line-rate time, the 1/eta bound, rho = line-rate time / (last - start - T),
the excess over the bound, and the receiver port's utilisation over 60-500 us (all 16 flows active).

  summarise.py reference NAME [RECEIVER]     mix/fct-NAME.txt and out/NAME.out of run-reference.sh
  summarise.py fabric DIR FRAME_BYTES [T_US]  a fabric-run output directory; FRAME_BYTES on the wire
                                              (4222 for the demo, 4198 with link.wire_overhead=0B)
Start 10 us, eta 0.95, 400 Gb/s, 4096 B payloads."""
import csv
import sys
from collections import defaultdict

START_US, ETA, RATE = 10.0, 0.95, 400e9


def report(name, finishes_ns, frame, t_us, port_samples, payload_bytes):
    frames = payload_bytes / 4096
    line_us = frames * frame * 8 / RATE * 1e6
    last_us = max(finishes_ns) / 1e3
    bound = START_US + line_us / ETA + t_us
    rho = line_us / (last_us - START_US - t_us)
    busy = sum(b for t, b in port_samples if 60e3 < t <= 500e3) * 8 / (440e-6 * RATE)
    print(f"{name}: flows {len(finishes_ns)} first {min(finishes_ns) / 1e3:.3f} us last {last_us:.3f} us "
          f"line-rate {line_us:.3f} us bound {bound:.3f} us last/bound {last_us / bound:.4f} rho {rho:.4f} "
          f"excess {rho and (ETA / rho - 1):+.4f} util(60-500us) {busy:.4f}")


if sys.argv[1] == "reference":
    name = sys.argv[2]
    recv = int(sys.argv[3]) if len(sys.argv) > 3 else (2 if name.startswith("hpcc-2") else 16)
    fct = [l.split() for l in open(f"mix/fct-{name}.txt")]
    fin = [int(f[5]) + int(f[6]) for f in fct]
    samples, tx = [], 0
    for l in open(f"out/{name}.out"):
        if l.startswith(f"ToR 0 Port {recv} "):
            p = l.split()
            b = int(p[p.index("txBytes") + 1])  # bytes sent since the previous line (getTxBytes resets)
            samples.append((float(p[p.index("time") + 1]) * 1e9, b))
            tx += b
    payload = sum(int(f[4]) for f in fct)
    frame = tx / (payload / 4096)  # the port's bytes per data frame (4186 with INT, 4144 without)
    report(name, fin, frame, 0.762, samples, payload)
else:
    d, frame = sys.argv[2], float(sys.argv[3])
    t_us = float(sys.argv[4]) if len(sys.argv) > 4 else 0.762
    rows = list(csv.DictReader(open(f"{d}/flows.csv")))
    fin = [float(r["finish_ns"]) for r in rows]
    rate = defaultdict(float)  # frame bytes delivered in the 5 us ending at time_ns (INT-counted frame: 4198 B)
    for r in csv.DictReader(open(f"{d}/rates.csv")):
        rate[float(r["time_ns"])] += float(r["rate_gbps"]) * 5e3 / 8 * frame / 4096
    report(d, fin, frame, t_us, sorted(rate.items()), sum(int(r["bytes"]) for r in rows))
