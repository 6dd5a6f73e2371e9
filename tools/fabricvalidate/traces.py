"""Strict readers for a fabric-run output directory.

Unlike the plotting tools (which degrade), the validator must fail loudly: a missing file, a
missing column or an unparsable row raises TraceError naming the file and the column, so a
broken trace can never turn into a silently passing (or silently empty) comparison.
"""

import csv
import json
import os


class TraceError(RuntimeError):
    pass


def read_csv(run_dir: str, name: str, columns, converters=None):
    """Rows of `name` as dicts restricted to `columns`; raises on anything missing."""
    path = os.path.join(run_dir, name)
    if not os.path.isfile(path):
        raise TraceError(f"{path}: missing")
    converters = converters or {}
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if not header:
            raise TraceError(f"{path}: empty (no header)")
        header = [h.strip() for h in header]
        idx = {}
        for c in columns:
            if c not in header:
                raise TraceError(f"{path}: column '{c}' missing (header: {','.join(header)})")
            idx[c] = header.index(c)
        rows = []
        for lineno, row in enumerate(reader, start=2):
            if not row:
                continue
            rec = {}
            for c in columns:
                text = row[idx[c]] if idx[c] < len(row) else ""
                conv = converters.get(c)
                if conv is None:
                    rec[c] = text
                    continue
                try:
                    rec[c] = conv(text)
                except ValueError as e:
                    raise TraceError(f"{path}:{lineno}: column '{c}': bad value {text!r}") from e
            rows.append(rec)
    return rows


def summary(run_dir: str) -> dict:
    path = os.path.join(run_dir, "summary.json")
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise TraceError(f"{path}: {e}") from e


def summary_field(s: dict, *keys):
    node = s
    for k in keys:
        if not isinstance(node, dict) or k not in node:
            raise TraceError(f"summary.json: field {'.'.join(keys)} missing")
        node = node[k]
    return node


def queue_series(run_dir: str, node: str, port: int, priority=None):
    """[(time_s, bytes)] of one egress port (all priorities summed unless one is given).

    queues.csv only has rows for queues that are or just were non-empty; a sample time at which
    the port has no row means 0 bytes, which is what the series returns for it (every sample
    time in the file is a sampling instant of every port).
    """
    rows = read_csv(run_dir, "queues.csv", ["time_ns", "node", "port", "priority", "bytes"],
                    {"time_ns": int, "port": int, "priority": int, "bytes": int})
    times = sorted({r["time_ns"] for r in rows})
    per_t = dict.fromkeys(times, 0)
    for r in rows:
        if r["node"] == node and r["port"] == port and (priority is None or r["priority"] == priority):
            per_t[r["time_ns"]] += r["bytes"]
    return [(t * 1e-9, per_t[t]) for t in times]


def flows(run_dir: str):
    return read_csv(run_dir, "flows.csv",
                    ["flow_id", "src", "dst", "bytes", "start_ns", "sent_bytes", "delivered_bytes",
                     "dropped_bytes"],
                    {"flow_id": int, "bytes": int, "start_ns": int, "sent_bytes": int,
                     "delivered_bytes": int, "dropped_bytes": int})


def links(run_dir: str):
    return read_csv(run_dir, "links.csv",
                    ["node", "port", "peer", "peer_port", "rate_bps", "tx_bytes", "rx_bytes",
                     "tx_frames"],
                    {"port": int, "peer_port": int, "rate_bps": int, "tx_bytes": int,
                     "rx_bytes": int, "tx_frames": int})


def port_towards(run_dir: str, node: str, peer: str) -> int:
    ports = [l["port"] for l in links(run_dir) if l["node"] == node and l["peer"] == peer]
    if len(ports) != 1:
        raise TraceError(f"links.csv: expected one port of {node} facing {peer}, found {ports}")
    return ports[0]


def pfc_events(run_dir: str):
    return read_csv(run_dir, "pfc.csv", ["time_ns", "node", "port", "priority", "event", "quanta"],
                    {"time_ns": int, "port": int, "priority": int, "quanta": int})


def rates(run_dir: str):
    return read_csv(run_dir, "rates.csv", ["time_ns", "flow_id", "src", "rate_gbps"],
                    {"time_ns": int, "flow_id": int, "rate_gbps": float})
