#!/usr/bin/python3
"""Self-test of tools/fabrictools/rundir.py, the reader every tool uses for a run directory.

Hand-written files with known content: typed rows, a trace stored only as .csv.gz, headers with
other case and spaces, blank and truncated lines, and each kind of error with the file, line and
column it must name.

    /usr/bin/python3 tests/tools/rundir_selftest.py [-v]
"""

import gzip
import os
import shutil
import tempfile
import unittest

from fabrictools import rundir  # tests/tools/fabrictools links to the package

FLOWS = "flow_id,src,bytes,finish_ns\n0,h1,4096,1500\n\n1,h2,8192,\n"
QUEUES = " Time_ns , node,port,bytes\n1000,sw0,3,100\n2000,sw0,3\n3000,sw0,3,300\n"


class RunDirTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="rundir-selftest-")
        self.write("flows.csv", FLOWS)
        with gzip.open(os.path.join(self.dir, "queues.csv.gz"), "wt") as handle:
            handle.write(QUEUES)
        self.write("summary.json", '{"seed": 7, "counters": {"sent_bytes": 12288}}')

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name, text):
        with open(os.path.join(self.dir, name), "w") as handle:
            handle.write(text)

    def test_typed_rows(self):
        rows = rundir.read_rows(self.dir, "flows.csv", ["flow_id", "src", "finish_ns"],
                                {"flow_id": int, "finish_ns": rundir.optional_int})
        self.assertEqual(rows, [{"flow_id": 0, "src": "h1", "finish_ns": 1500},
                                {"flow_id": 1, "src": "h2", "finish_ns": None}])

    def test_compressed_trace_and_loose_header(self):
        self.assertTrue(rundir.trace_path(self.dir, "queues.csv").endswith("queues.csv.gz"))
        with rundir.Table.of_run(self.dir, "queues.csv") as table:
            self.assertEqual(table.header, ["Time_ns", "node", "port", "bytes"])
            # The truncated line 3 has no bytes cell: left out by the tolerant view.
            self.assertEqual(list(table.cells(["time_ns", "bytes"], optional=["priority"])),
                             [("1000", "100", ""), ("3000", "300", "")])

    def test_bad_value_names_file_line_and_column(self):
        with self.assertRaises(rundir.BadValue) as err:
            rundir.read_rows(self.dir, "queues.csv", ["time_ns", "bytes"], {"bytes": int})
        self.assertEqual((err.exception.line, err.exception.column, err.exception.text),
                         (3, "bytes", ""))
        self.assertIn("queues.csv.gz:3: column 'bytes'", str(err.exception))

    def test_missing_things(self):
        with self.assertRaises(rundir.MissingColumn) as err:
            rundir.read_rows(self.dir, "flows.csv", ["src", "fct_ns", "cnps"])
        self.assertEqual(err.exception.columns, ["fct_ns", "cnps"])
        with self.assertRaises(rundir.MissingFile):
            rundir.read_rows(self.dir, "pfc.csv", ["time_ns"])
        self.write("rates.csv", "")
        with self.assertRaises(rundir.EmptyFile):
            rundir.read_rows(self.dir, "rates.csv", ["time_ns"])

    def test_summary(self):
        summary = rundir.read_summary(self.dir)
        self.assertEqual(rundir.summary_field(summary, "counters", "sent_bytes"), 12288)
        with self.assertRaises(rundir.RunDirError) as err:
            rundir.summary_field(summary, "counters", "dropped_bytes")
        self.assertIn("counters.dropped_bytes", str(err.exception))
        self.write("summary.json", "[1, 2]")
        with self.assertRaises(rundir.BadSummary):
            rundir.read_summary(self.dir)
        self.write("summary.json", '{"seed": ')
        with self.assertRaises(rundir.BadSummary):
            rundir.read_summary(self.dir)

    def test_whole_table(self):
        header, rows = rundir.read_table(os.path.join(self.dir, "flows.csv"))
        self.assertEqual(header, ["flow_id", "src", "bytes", "finish_ns"])
        self.assertEqual([r["bytes"] for r in rows], ["4096", "8192"])
        self.assertEqual(rows[1]["finish_ns"], "")


if __name__ == "__main__":
    unittest.main(verbosity=2)
