#!/usr/bin/python3
"""Test of tools/superpod-size ("Datacenter networks", chapter 7, §7.6.4) against the chapter's
table and against terms worked out by hand below. Exits non-zero on failure.

    /usr/bin/python3 tests/tools/superpod_size_test.py
"""
import os
import re
import subprocess
import sys

REPO_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
TOOL = os.path.join(REPO_DIR, "tools", "superpod-size")

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def near(a, b, tol, what):
    check(abs(a - b) <= tol, f"{what}: {a} vs {b} (tolerance {tol})")


def rows(*args):
    out = subprocess.run([TOOL, *args], check=True, capture_output=True, text=True).stdout
    table = {}
    for line in out.splitlines():
        m = re.match(r"\| (\d+) \| (\d+) \| (\d+) \| (\d+) GB \| (.*) \| (.*) \|$", line)
        if m:
            cells = [re.match(r"([\d.]+) s / ([\d.]+) M tokens/s \(T_grad ([\d.]+) ms, (.*)\)",
                              c).groups() for c in (m.group(5), m.group(6))]
            table[int(m.group(1))] = (int(m.group(4)), [(float(s), float(t), float(g), algo)
                                                        for s, t, g, algo in cells])
    return out, table


def main():
    out, table = rows()
    # The chapter's table: sent out per superpod, step / throughput scaled, then fixed.
    chapter = {8: (127, 0.939, 1.117, 0.939, 1.117), 64: (120, 0.690, 1.520, 0.939, 1.117),
               128: (112, 0.672, 1.560, 0.935, 1.122), 256: (96, 0.663, 1.581, 0.896, 1.171)}
    check(sorted(table) == [8, 64, 128, 256], f"four rows:\n{out}")
    for s, (vol, st, th, sf, tf) in chapter.items():
        if s not in table:
            continue
        v, ((st_, th_, _, _), (sf_, tf_, _, _)) = table[s]
        check(v == vol, f"S={s} sent out {v} GB, chapter {vol}")
        near(st_, st, 0.0005, f"S={s} scaled step")
        near(th_, th, 0.0005, f"S={s} scaled throughput")
        near(sf_, sf, 0.0005, f"S={s} fixed step")
        near(tf_, tf, 0.0005, f"S={s} fixed throughput")
    # Worked by hand (G = 8 GB, B_L = 450 GB/s, B_NIC = 50 GB/s, a = 0.83 us):
    # S = 64 fixed: hierarchical 2*7*8/(8*450) s = 31.1 ms local + 2*15/16*64/400 s = 300 ms
    # out (331.1 ms) loses to the flat ring 2*127/128*8/50 s = 317.5 ms + 254 a = 317.7 ms.
    fixed64 = table[64][1][1]
    near(fixed64[2], 317.5 + 254 * 0.83e-3, 0.05, "S=64 fixed T_grad")
    check(fixed64[3] == "flat ring", "S=64 fixed picks the flat ring")
    # S = 128 scaled: 2*15*8/(16*450) s = 33.33 ms local + max(2*7*8/(8*16*50), 112/6400) s =
    # 17.5 ms out, plus 30 + 14 rounds of a: 50.87 ms.
    _, _, g128, algo128 = table[128][1][0]
    near(g128, 33.333 + 17.5 + 44 * 0.83e-3, 0.05, "S=128 scaled T_grad")
    check(algo128 == "hierarchical", "S=128 scaled is hierarchical")
    # S = 8: the whole 8 GB shard through the NIC, 2*127/128*8/50 s = 0.3175 s ("a third of the
    # step").
    g8 = table[8][1][0][2]
    near(g8, 317.5 + 254 * 0.83e-3, 0.05, "S=8 T_grad")
    # 900 GB/s NVLink at 128: 0.614 s, 1.709 M tokens/s; 3:1 oversubscription: 17.5 -> 52.5 ms
    # out, the step about 35 ms longer.
    _, t900 = rows("--sizes", "128", "--local-bandwidth", "900")
    near(t900[128][1][0][0], 0.614, 0.0005, "900 GB/s step")
    near(t900[128][1][0][1], 1.709, 0.0005, "900 GB/s throughput")
    _, t3 = rows("--sizes", "128", "--oversubscription", "3")
    near(t3[128][1][0][2] - g128, 52.5 - 17.5, 0.05, "3:1 adds 35 ms")
    # The TP-degree sweep at 128 accelerators, exit scaled: TP 8/16/32/64 with DP 128/64/32/16,
    # the chapter's 0.672, 0.753, 0.942 and 1.333 s.
    out, _ = rows("--sizes", "128", "--tp-sweep")
    sweep = {}
    for line in out.splitlines():
        m = re.match(r"\| 128 \| (\d+) \| (\d+) \| (\d+) \| ([\d.]+) s \| ([\d.]+) ms, (.*) \| "
                     r"([\d.]+) s / ([\d.]+) M tokens/s \|$", line)
        if m:
            sweep[int(m.group(1))] = (int(m.group(2)), int(m.group(3)), float(m.group(4)),
                                      float(m.group(5)), float(m.group(7)))
    check(sorted(sweep) == [8, 16, 32, 64], f"four TP rows:\n{out}")
    for tp, (dp, step) in {8: (128, 0.672), 16: (64, 0.753), 32: (32, 0.942),
                           64: (16, 1.333)}.items():
        if tp in sweep:
            check(sweep[tp][0] == dp, f"TP{tp}: DP {sweep[tp][0]}, expected {dp}")
            near(sweep[tp][4], step, 0.0005, f"TP{tp} step")
    # By hand at TP16: a replica computes 2^20 * 16/1024 = 16384 tokens, so each of the 4 * 64
    # TP AllReduces carries 2 * 5120 * 16384 B = 160 MiB over a ring of 16:
    # 256 * (30 * 0.83 us + 2 * 15/16 * 167772160 B / 450 GB/s) = 185.33 ms. The shard is
    # G = 2P/16 = 4 GB among q = 8 inside the superpod: 2*7*4/(8*450) s = 15.56 ms local,
    # max(2*7*4/(8*8*50), 56/6400) s = 17.5 ms out, plus 14 + 14 rounds of a: 33.08 ms.
    if 16 in sweep:
        check(sweep[16][1] == 16384, "TP16: 16384 tokens per replica")
        near(sweep[16][2], 256 * (30 * 0.83e-6 + 2 * 15 / 16 * 167772160 / 450e9), 0.0005,
             "TP16 TP AllReduces")
        near(sweep[16][3], 15.556 + 17.5 + 28 * 0.83e-3, 0.05, "TP16 T_grad")
    for bad in (["--sizes", "12"], ["--oversubscription", "0"], ["--local-bandwidth", "-1"],
                ["--tp-sweep", "3"]):
        r = subprocess.run([TOOL, *bad], capture_output=True, text=True)
        check(r.returncode != 0 and "superpod-size" in r.stderr, f"{bad} is an error")
    print("superpod_size_test:", "FAILED" if FAILURES else "ok")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
