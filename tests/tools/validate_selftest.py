#!/usr/bin/python3
"""Self-test of tools/validate (the validation runner itself), about 40 s on 2 cores.

  tests/tools/validate_selftest.py [--build BUILD_DIR]

- one small case (incast-fill, --quick) runs and passes;
- the same case with a sabotaged model (an ns-3 attribute the formulas do not know about, so the
  simulation no longer matches the analytic prediction) is reported as a MISS, exit status 1 —
  not as a pass and not as a crash;
- every case, run --quick with one perturbation smaller than the precision it claims (1 % more
  wire overhead per frame, a DCQCN stage count off by one), is a MISS: no case's tolerance is
  wide enough to hide such an error;
- a missing trace column and a NaN from a formula fail loudly (exceptions, verdict ERROR,
  exit status 2);
- the exact balls-into-bins distribution equals brute-force enumeration on small cases, and the
  validator's scenario merge must agree with what the simulator reports it ran.
"""

import argparse
import csv
import io
import itertools
import json
import os
import shutil
import sys
import tempfile
import unittest
from contextlib import redirect_stdout, redirect_stderr

# tests/tools/fabrictools links to the package
from fabrictools import rundir
from fabrictools.repo import ROOT
from fabrictools.validate import ballsbins, cli, core, ecmp, scenario, tandem
from fabrictools.validate.cases import incast_fill

BUILD = os.environ.get("FABRIC_BUILD_DIR", os.path.join(ROOT, "build"))

# One perturbation per case, invisible to the formulas and smaller than the case's claimed
# precision. 42 B is 1 % of a 4154 B frame where the scenario has no wire overhead
# (queue-integrator, ecmp-collisions, concurrency), and 66 B instead of 24 B is 1 % of a 4178 B
# frame on the wire elsewhere: every link 1 % slower.
WIRE = "ns3::FabricNetDevice::WireOverhead"
SABOTAGE = {
    "queue-integrator": f"{WIRE}=42",
    "late-feedback": f"{WIRE}=66",
    "incast-fill": f"{WIRE}=66",
    "pfc-headroom": f"{WIRE}=66",
    "multipath": f"{WIRE}=66",
    "loss-recovery": f"{WIRE}=66",
    "ecmp-collisions": f"{WIRE}=42",
    "collectives": f"{WIRE}=66",
    "concurrency": f"{WIRE}=42",
    # F = 4 fast-recovery stages instead of 5: one stage early into additive increase.
    "dcqcn-recurrence": "ns3::DcqcnCongestionControl::FastRecoveryStages=4",
    # g = 1/15 instead of the printed 1/16: alpha after one window is off by 4e-3.
    "dctcp-alpha": "ns3::DctcpCongestionControl::G=0.0666667",
    # eta 1 % below the printed 0.95: the lone flow's U settles 1 % below eta + W_AI/(B·T).
    "hpcc-incast": "ns3::HpccCongestionControl::Eta=0.9405",
    # The target one frame time (83.56 ns) above the printed 5 us: one frame more held.
    "swift-held-queue": "ns3::SwiftCongestionControl::BaseTarget=5084ns",
    # 1.5001 BDP instead of the printed 1.5: the first window 11 B (1e-4) above 165 000 B.
    "nscc-initial-window": "ns3::NsccCongestionControl::MaxWindowBdp=1.5001",
    # beta 0.801 instead of the printed 0.8: each cut 1e-4 deeper than f.
    "timely-high-rtt": "ns3::TimelyCongestionControl::Beta=0.801",
    # eta 1 % below the printed 0.95: Γ_n and W settle 1 % below the fixed point.
    "powertcp-lone-flow": "ns3::PowerTcpCongestionControl::Eta=0.9405",
    # 4 B of wire overhead on 322 B frames (1.2 %): the 50 GB/s payload path 1.2 % slower.
    "request-path": f"{WIRE}=4",
    # Completions polled every 20.2 µs instead of the printed 20 µs: relaunches 0.2 µs late.
    "completion-backpressure": "ns3::UbNic::CompletionPollInterval=20200ns",
    # Every frame 42 B longer on the wire: the 64 MiB transfer 13.8 µs, the ring 3.9 µs slower.
    "job-timelines": f"{WIRE}=66",
    # 1 B more per 5000 B frame (0.02 %): C's 100 frames 2 ns later, over the 1 ns allowance.
    "ordering-example": f"{WIRE}=1",
    # Every frame 42 B longer on the wire: the slot-bound ring 1 % (57 µs), the dispatch 10 µs
    # slower.
    "shared-interfaces": f"{WIRE}=66",
    # A DRAM row hit of 30.001 ns instead of the printed 30 ns: the UB reads 1 ps slower.
    "remote-read-latency": "ns3::UbNic::DramTime=30001ps",
}
# Further perturbations a case must catch (case, attribute).
SABOTAGE_MORE = [
    # A CNP keeps the target rate unless a timer increase happened since the previous CNP.
    ("dcqcn-recurrence", "ns3::DcqcnCongestionControl::ClampTargetRate=false"),
    # The leaf sums 1 % slower than the 1.6 Tb/s the aggregator-bound row assumes.
    ("collectives", "ns3::SharpAggregator::AggregationRate=1584Gbps"),
    # eta 1 % above 0.95: the lone flow above its fixed point, the 2:1 goodput above
    # eta·B·p/f plus the additive steps.
    ("hpcc-incast", "ns3::HpccCongestionControl::Eta=0.9595"),
    # ... and one frame time below: one frame less.
    ("swift-held-queue", "ns3::SwiftCongestionControl::BaseTarget=4916ns"),
    # ... and 1e-4 below: 11 B under.
    ("nscc-initial-window", "ns3::NsccCongestionControl::MaxWindowBdp=1.4999"),
    # ... and a target delay a quarter long: the held queue 15 % above T·C.
    ("nscc-initial-window", "ns3::NsccCongestionControl::TargetDelay=2500ns"),
    # ... and 0.799: each cut 1e-4 shallower.
    ("timely-high-rtt", "ns3::TimelyCongestionControl::Beta=0.799"),
    # ... 1 % above; τ 0.1 % above the printed 10 µs: W 475 B above η·B·τ + β; and the
    # paper's window rule (no η, γ against the current window): W at B·τ, Γ_n at 0.994.
    ("powertcp-lone-flow", "ns3::PowerTcpCongestionControl::Eta=0.9595"),
    ("powertcp-lone-flow", "ns3::PowerTcpCongestionControl::BaseRtt=10010ns"),
    ("powertcp-lone-flow", "ns3::PowerTcpCongestionControl::Variant=paper"),
    # A launch every 18.8 ns instead of the printed 6.2 / 18.6 ns: m/δ 1 % (or far) lower.
    ("request-path", "ns3::UbNic::RequestInterval=18.8ns"),
    # 5 completions handled per poll instead of 4: slots free sooner, 2.05 GB/s sustained.
    ("completion-backpressure", "ns3::UbNic::CompletionPollBatch=5"),
    # C posted 60 ns after A instead of 6.2 ns: after A's second frame has left, one frame later.
    ("ordering-example", "ns3::UbNic::RequestInterval=60ns"),
    # One byte more per frame on the wire: each read 40 ps slower than its two frames.
    ("remote-read-latency", f"{WIRE}=25"),
]


def run_cli(args):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = cli.main(args)
    return rc, out.getvalue() + err.getvalue()


class ValidateSelfTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="validate-selftest-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def _run(self, name, extra=()):
        out = os.path.join(self.tmp, name)
        rc, log = run_cli(["--quick", "--only", "incast-fill", "--build", BUILD, "--out", out,
                           "--runs", os.path.join(out, "runs"), *extra])
        with open(os.path.join(out, "report.json")) as f:
            rep = json.load(f)
        return rc, log, rep, out

    def test_1_small_case_passes(self):
        rc, log, rep, out = self._run("normal")
        self.assertEqual(rc, 0, log)
        case = rep["cases"][0]
        self.assertEqual(case["verdict"], "pass", log)
        self.assertTrue(case["checks"])
        self.assertTrue(any(c["verdict"] == "pass" for c in case["checks"]))
        for c in case["checks"]:
            self.assertIn(c["verdict"], ("pass", "info"))
            self.assertIsNotNone(c["analytic"])
            self.assertGreater(c["simulated"], 0)
        self.assertTrue(os.path.isfile(os.path.join(out, "report.md")))
        self.assertTrue(os.path.isfile(os.path.join(out, "incast-fill.png")))

    def test_2_sabotaged_model_is_a_miss(self):
        # 400 B of wire overhead per frame slows every link by ~10 %; the scenario still says
        # 24 B, so the analytic side predicts the unsabotaged fill time.
        rc, log, rep, _ = self._run(
            "sabotage", ["--sabotage-attr", "ns3::FabricNetDevice::WireOverhead=400"])
        self.assertEqual(rc, 1, log)
        case = rep["cases"][0]
        self.assertEqual(case["verdict"], "MISS", log)
        self.assertTrue(any(c["verdict"] == "MISS" for c in case["checks"]))

    def test_2b_every_case_misses_a_small_sabotage(self):
        self.assertEqual(sorted(SABOTAGE), sorted(c for c, _, _ in cli.CASES))
        for i, (case_id, attr) in enumerate(list(SABOTAGE.items()) + SABOTAGE_MORE):
            with self.subTest(case=case_id, attr=attr):
                out = os.path.join(self.tmp, f"sabotage-{i}-{case_id}")
                rc, log = run_cli(["--quick", "--only", case_id, "--build", BUILD, "--out", out,
                                   "--runs", os.path.join(out, "runs"), "--sabotage-attr", attr])
                with open(os.path.join(out, "report.json")) as f:
                    case = json.load(f)["cases"][0]
                self.assertEqual((rc, case["verdict"]), (1, "MISS"), log)
                self.assertTrue(any(c["verdict"] == "MISS" for c in case["checks"]))

    def test_3_missing_trace_column_fails_loudly(self):
        rc, log, rep, out = self._run("column")
        self.assertEqual(rc, 0, log)
        run_dir = os.path.join(out, "runs", "incast-fill", "n8-1MiB")
        broken = os.path.join(self.tmp, "broken-run")
        shutil.copytree(run_dir, broken)
        with open(os.path.join(run_dir, "queues.csv")) as f:
            rows = list(csv.reader(f))
        with open(os.path.join(broken, "queues.csv"), "w", newline="") as f:
            w = csv.writer(f)
            for r in rows:
                w.writerow(r[:4])  # drop the bytes column
        params = rundir.read_summary(broken)["parameters"]
        case = core.CaseResult("incast-fill", "t", "", "")
        with self.assertRaises(rundir.MissingColumn) as ctx:
            incast_fill.analyze(case, "broken", broken, params)
        self.assertIn("bytes", str(ctx.exception))
        self.assertEqual(case.checks, [])

    def test_4_formula_error_fails_loudly(self):
        with self.assertRaises(core.ValidationError):
            core.Check("x", "m", "s", float("nan"), 1.0, "f", base_rel=0.0)
        # No blanket relative tolerance: a judged check must state its own.
        with self.assertRaises(core.ValidationError):
            core.Check("x", "m", "s", 1.0, 1.0, "f")
        original = incast_fill.predict

        def broken(params, where):
            p = original(params, where)
            p["t_drop"] = float("nan")
            return p
        incast_fill.predict = broken
        try:
            rc, log, rep, _ = self._run("formula")
        finally:
            incast_fill.predict = original
        self.assertEqual(rc, 2, log)
        self.assertEqual(rep["cases"][0]["verdict"], "ERROR")
        self.assertIn("NaN", rep["cases"][0]["error"])

    def test_5_exact_max_load_matches_enumeration(self):
        for n, m in [(3, 3), (4, 2), (5, 3), (2, 4), (6, 2)]:
            counts = {}
            for seq in itertools.product(range(m), repeat=n):
                k = max(seq.count(b) for b in range(m))
                counts[k] = counts.get(k, 0) + 1
            pmf = ballsbins.max_load_pmf(n, m)
            for k, p in enumerate(pmf):
                self.assertEqual(p * m ** n, counts.get(k, 0), (n, m, k))
            self.assertAlmostEqual(float(ballsbins.p_no_collision(n, m)),
                                   counts.get(1, 0) / m ** n if n <= m else 0.0)
        self.assertEqual(ballsbins.quantile_max(8, 32, 0.99), 3)

    def test_6_scenario_merge_must_match_the_run(self):
        doc = {"a": {"b": "1"}, "topology": {"hosts": "auto"}, "workload": {"senders": 3}}
        merged = scenario.with_overrides(doc, {"a.c": "2us", "x.y": [1, 2]})
        self.assertEqual(merged["a"], {"b": "1", "c": "2us"})
        ran = {"a": {"b": "1", "c": "2us"}, "topology": {"hosts": "4"},
               "workload": {"senders": "3"}, "x": {"y": ["1", "2"]}}
        scenario.check_same(merged, ran, "ok")
        ran["a"]["c"] = "3us"
        with self.assertRaises(scenario.ScenarioError):
            scenario.check_same(merged, ran, "mismatch")

    def test_7_ecmp_queries_reach_the_simulator(self):
        fabric_run = os.path.join(BUILD, "fabric-run")
        # MurmurHash3 fmix32 reference value: the salt 0x9e3779b9 zeroes the first mix, a UB
        # frame then mixes its entropy alone, so entropy 1 hashes to fmix32(1) = 0x514E28B7.
        # FlowEntropy(0, 1) in scenario-runner.cc: the MurmurHash3 fmix64 of 1 is
        # 0xb456bcfc34c2cb2c; 0xb456bcfc34c2cb2c % 16384 = 2860 -> port 52012. (The ECMP case
        # also checks end to end that these ports predict the simulator's uplinks.)
        queries = [ecmp.query(0x9E3779B9, "0.0.0.0", "0.0.0.0", 1, ecmp.UB_UDP_PORT, ub=True,
                              group=16),
                   ecmp.query(ecmp.switch_salt(0, 0), ecmp.host(0), ecmp.host(1),
                              ecmp.flow_entropy(0, 1))]
        memo = {}
        ub, roce = ecmp.ask(fabric_run, queries, memo)
        self.assertEqual((ub.hash, ub.index), (0x514E28B7, 0x514E28B7 % 16))
        self.assertEqual(ub.src_port, 1)
        self.assertIsNone(roce.index)
        self.assertEqual(roce.src_port, 52012)
        # switch:0:0 is 0·2654435761 + 0·40503 + 1 = 1; host:0 and host:1 are 10.0.0.1 and .2
        self.assertEqual(roce.resolved, "1 10.0.0.1 10.0.0.2 52012 4791 17")
        self.assertEqual(ecmp.ask("/nonexistent-fabric-run", queries, memo), [ub, roce])
        with self.assertRaises(ecmp.EcmpQueryError) as err:
            ecmp.ask(fabric_run, [queries[0], "1 2 3"])
        self.assertIn("stdin:2: src_port: missing", str(err.exception))

    def test_8_tandem_fifo_and_reorder_by_hand(self):
        # 8 Gb/s = 1 byte per ns: a 100 B frame takes 100 ns, then 10 ns of cable. Two frames
        # released together leave back to back: 110 ns and 210 ns.
        link = tandem.TLink("a->b", 8 * 10 ** 9, 10_000)
        out = tandem.run([dict(release=0, bytes=100, route=[link]),
                          dict(release=0, bytes=100, route=[link])])
        self.assertEqual([o["arrive"] for o in out], [110_000, 210_000])
        # Two hops, store and forward: 100 + 10 + 100 + 10 ns.
        l1, l2 = tandem.TLink("1", 8 * 10 ** 9, 10_000), tandem.TLink("2", 8 * 10 ** 9, 10_000)
        self.assertEqual(tandem.run([dict(release=0, bytes=100, route=[l1, l2])])[0]["arrive"],
                         220_000)
        # Packet 0 arrives last: 1, 2, 3 wait (3 packets, 30 B), all delivered at t = 5.
        peak_p, peak_b, series, done = tandem.reorder([5, 1, 2, 3], [10, 10, 10, 10])
        self.assertEqual((peak_p, peak_b, done), (3, 30, 5))
        self.assertEqual(series[-1], (5, 0, 0))



class ReportStaleness(unittest.TestCase):
    """./fabric validate says when the committed report is older than the model."""

    def git(self, repo, *args):
        import subprocess
        subprocess.run(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"] + list(args),
                       check=True, capture_output=True)

    def test_a_model_commit_after_the_report_makes_it_stale(self):
        import subprocess
        from fabrictools.validate import report
        with tempfile.TemporaryDirectory() as repo:
            self.git(repo, "init", "-q")
            model = os.path.join(repo, "contrib", "fabric", "model")
            os.makedirs(model)
            with open(os.path.join(model, "a.cc"), "w") as f:
                f.write("1\n")
            self.git(repo, "add", "-A")
            self.git(repo, "commit", "-q", "-m", "model")
            rev = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"],
                                 capture_output=True, text=True).stdout.strip()
            path = os.path.join(repo, "report.json")
            with open(path, "w") as f:
                json.dump({"git_revision": rev, "model_dirty": False}, f)
            self.assertEqual(report.staleness(repo, path), "")
            # A commit outside the model (the report itself, docs) keeps it current.
            self.git(repo, "add", "report.json")
            self.git(repo, "commit", "-q", "-m", "report")
            self.assertEqual(report.staleness(repo, path), "")
            with open(os.path.join(model, "a.cc"), "w") as f:
                f.write("2\n")
            self.assertTrue(report.model_dirty(repo))
            self.git(repo, "commit", "-q", "-am", "model again")
            why = report.staleness(repo, path)
            self.assertIn(f"generated at {rev}; 1 later commit changed the model", why)
            # A report written from uncommitted model changes names no revision it describes.
            with open(path, "w") as f:
                json.dump({"git_revision": rev, "model_dirty": True}, f)
            self.assertIn("uncommitted model changes", report.staleness(repo, path))

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=None)
    args, rest = ap.parse_known_args()
    if args.build:
        BUILD = os.path.abspath(args.build)
    if not os.access(os.path.join(BUILD, "fabric-run"), os.X_OK):
        sys.exit(f"validate_selftest: {BUILD}/fabric-run not found")
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
