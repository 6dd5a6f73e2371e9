#!/usr/bin/python3
"""tools/conweave-run (fabrictools/conweave.py) against what conweave-project/conweave-ns3's
run.py and traffic_gen/traffic_gen.py do, without running the simulator (--dry-run): the
config.txt's values, the per-topology ConWeave timers, run.py's refusals, the layout of the run
directory, and the flow generator's statistics. Expected values are run.py's expressions
evaluated by hand (line numbers: run.py at commit 236a801)."""

import os
import random
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(ROOT, "tools", "conweave-run")

from fabrictools import conweave  # tests/tools/fabrictools links to the package


def config_keys(text):
    """config.txt as {KEY: rest of line}."""
    keys = {}
    for line in text.splitlines():
        if line.strip():
            k, _, v = line.partition(" ")
            keys[k] = v
    return keys


class ConfigText(unittest.TestCase):
    def test_dcqcn_ecmp_leaf_spine(self):
        k = config_keys(conweave.config_text("dcqcn", "fecmp", 1, 0, "0.005", 50,
                                             "leaf_spine_128_100G_OS2", 100, "9", "FLOW", "7"))
        self.assertEqual(k["TOPOLOGY_FILE"], "config/leaf_spine_128_100G_OS2.txt")
        self.assertEqual(k["FLOW_FILE"], "config/FLOW.txt")
        self.assertEqual(k["FCT_OUTPUT_FILE"], "mix/output/7/7_out_fct.txt")
        self.assertEqual(k["CC_MODE"], "1")
        self.assertEqual(k["LB_MODE"], "0")
        self.assertEqual((k["ENABLE_PFC"], k["ENABLE_IRN"]), ("1", "0"))
        # run.py:353-354 at --bw 100: 10 x 100 / 25 and 25 x 100 / 25, Python 3 division.
        self.assertEqual((k["RATE_AI"], k["RATE_HAI"]), ("40.0Mb/s", "100.0Mb/s"))
        self.assertEqual((k["FAST_REACT"], k["MI_THRESH"], k["INT_MULTI"]), ("0", "0", "1"))
        self.assertEqual(k["EWMA_GAIN"], "0.00390625")
        # DCQCN rate-based: no window (run.py:301-303).
        self.assertEqual((k["HAS_WIN"], k["VAR_WIN"]), ("0", "0"))
        # run.py:120: arrivals from 2.0 s for --simul_time; queues monitored over them.
        self.assertEqual((k["FLOWGEN_START_TIME"], k["FLOWGEN_STOP_TIME"]), ("2.0", "2.005"))
        self.assertEqual((k["QLEN_MON_START"], k["QLEN_MON_END"]), ("2.0", "2.005"))
        # run.py:341-346: six speeds from 20 to 400 Gb/s, 100/400 KB, 0.2 each.
        self.assertEqual(k["KMIN_MAP"], "6 20000000000 100 50000000000 100 100000000000 100 "
                                        "200000000000 100 250000000000 100 400000000000 100")
        # run.py:345 formats the first two probabilities with %d: 0 at 20 and 50 Gb/s.
        self.assertTrue(k["PMAX_MAP"].startswith("6 20000000000 0 50000000000 0 "
                                                 "100000000000 0.20"), k["PMAX_MAP"])
        self.assertEqual((k["BUFFER_SIZE"], k["LOAD"], k["RANDOM_SEED"]), ("9", "50", "1"))
        # The dummy ConWeave timers when another balancer runs (run.py:272-279).
        self.assertEqual(k["CONWEAVE_TX_EXPIRY_TIME"], "1000")
        self.assertEqual(k["CONWEAVE_DEFAULT_VOQ_WAITING_TIME"], "400")

    def test_conweave_timers_by_topology(self):
        # run.py:252-271: (reply extra, path pause, VOQ flush extra, VOQ wait, TX expiry) in us.
        def timers(topo, pfc, irn):
            k = config_keys(conweave.config_text("dcqcn", "conweave", pfc, irn, "0.005", 50,
                                                 topo, 100, "9", "F", "1"))
            return tuple(int(k["CONWEAVE_" + n]) for n in (
                "REPLY_TIMEOUT_EXTRA", "PATH_PAUSE_TIME", "EXTRA_VOQ_FLUSH_TIME",
                "DEFAULT_VOQ_WAITING_TIME", "TX_EXPIRY_TIME"))
        self.assertEqual(timers("leaf_spine_128_100G_OS2", 1, 0), (4, 16, 16, 200, 300))
        self.assertEqual(timers("fat_k8_100G_OS2", 0, 1), (4, 16, 16, 300, 1000))
        self.assertEqual(timers("fat_k8_100G_OS2", 1, 0), (4, 16, 64, 600, 1000))
        self.assertEqual(timers("fat_k4_100G_OS2", 1, 0), (4, 16, 64, 600, 1000))
        with self.assertRaises(conweave.RunPyError):
            timers("other_OS2", 1, 0)

    def test_windows_by_cc(self):
        # run.py:299-303: HPCC (3) and DCTCP (8) run with a window.
        for cc, mode, win in (("hpcc", "3", "1"), ("dctcp", "8", "1"), ("timely", "7", "0")):
            k = config_keys(conweave.config_text(cc, "fecmp", 1, 0, "0.005", 50,
                                                 "leaf_spine_128_100G_OS2", 100, "9", "F", "1"))
            self.assertEqual((k["CC_MODE"], k["HAS_WIN"], k["VAR_WIN"]), (mode, win, win))
            # HPCC reacts per ACK here (FAST_REACT 0 is refused for it); TIMELY's steps are the
            # HPCC simulator's run.py's (10 x 100 / 10 and 50 x 100 / 10), a whole multiplier.
            self.assertEqual(k["FAST_REACT"], "1" if cc == "hpcc" else "0")
            if cc == "timely":
                self.assertEqual((k["RATE_AI"], k["RATE_HAI"]), ("100.0Mb/s", "500.0Mb/s"))


class Refusals(unittest.TestCase):
    def test_run_py_sanity_checks(self):
        ok = dict(cc="dcqcn", lb="fecmp", pfc=1, irn=0, simul_time="0.005")
        conweave.sanity_check(**ok)
        for bad in (dict(cc="hpcc", lb="conweave"), dict(cc="timely", lb="conweave"),
                    dict(pfc=1, irn=1), dict(pfc=0, irn=0), dict(simul_time="0.004"),
                    dict(lb="pecmp"), dict(cc="swift")):
            with self.assertRaises(conweave.RunPyError, msg=str(bad)):
                conweave.sanity_check(**{**ok, **bad})

    def test_netload_must_divide_by_the_oversubscription(self):
        self.assertEqual(conweave.host_load("leaf_spine_128_100G_OS2", 50), 25.0)
        with self.assertRaises(conweave.RunPyError):
            conweave.host_load("leaf_spine_128_100G_OS2", 45)


class Generator(unittest.TestCase):
    def test_offered_load_and_format(self):
        # AliStorage2019 at 25 % of 100 Gb/s for 5 ms on 32 hosts: the mean gap is
        # avg x 8 / 25 Gb/s per host, so about 32 x 5 ms / gap flows, each host's offered
        # bytes about 25 % of 5 ms x 100 Gb/s.
        cdf = conweave.FlowSizeCdf(os.path.join(conweave.EXAMPLES_DIR, "AliStorage2019.txt"))
        avg = cdf.average()
        gap_ns = avg * 8 / 25e9 * 1e9
        flows = conweave.generate_flows(cdf, 32, 0.25, 100e9, 0.005, random.Random(3))
        expected = 32 * 5e6 / gap_ns
        self.assertLess(abs(len(flows) - expected), 4 * expected ** 0.5)
        self.assertTrue(all(s != d and 0 <= s < 32 and 0 <= d < 32 for s, d, _, _ in flows))
        self.assertTrue(all(2000000000 <= t <= 2005000000 for _, _, _, t in flows))
        self.assertEqual([t for *_, t in flows], sorted(t for *_, t in flows))
        self.assertTrue(all(1 <= size <= cdf.cdf[-1][0] for _, _, size, _ in flows))
        # The same seed, the same flows.
        again = conweave.generate_flows(cdf, 32, 0.25, 100e9, 0.005, random.Random(3))
        self.assertEqual(flows, again)


class DryRun(unittest.TestCase):
    def test_run_directory_as_run_py_lays_it_out(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "run")
            p = subprocess.run([sys.executable, TOOL, "--topo", "fat_k4_100G_OS2", "--bdp",
                                "156000", "--netload", "50", "--simul_time", "0.005", "--out",
                                out, "--dry-run"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            flow = "L_25.00_CDF_AliStorage2019_N_32_T_5ms_B_100_flow"  # run.py:216-217
            for f in ("config/fat_k4_100G_OS2.txt", f"config/{flow}.txt",
                      "mix/output/1/config.txt", "conweave-run.json"):
                self.assertTrue(os.path.exists(os.path.join(out, f)), f)
            with open(os.path.join(out, "config", flow + ".txt")) as f:
                count = int(f.readline())
                self.assertEqual(count, sum(1 for _ in f))
            # fat_k4 is not in run.py's topo2bdp: refused without --bdp, as run.py stops.
            p = subprocess.run([sys.executable, TOOL, "--topo", "fat_k4_100G_OS2", "--netload",
                                "50", "--simul_time", "0.005", "--out", out, "--dry-run"],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn("topo2bdp", p.stderr)


if __name__ == "__main__":
    unittest.main()
