"""The traces the validation cases compare with their models, read strictly.

Unlike the plotting tools (which degrade), the validator must fail loudly: the readers of
fabrictools.rundir raise on a missing file, a missing column or an unparsable row, naming the
file, the line and the column, so a broken trace can never turn into a silently passing (or
silently empty) comparison. This module only adds the views several cases share.
"""

from .. import rundir
from ..rundir import RunDirError


def queue_series(run_dir: str, node: str, port: int, priority=None):
    """[(time_s, bytes)] of one egress port (all priorities summed unless one is given).

    queues.csv only has rows for queues that are or just were non-empty; a sample time at which
    the port has no row means 0 bytes, which is what the series returns for it (every sample
    time in the file is a sampling instant of every port).
    """
    rows = rundir.read_rows(run_dir, rundir.QUEUES_CSV,
                            ["time_ns", "node", "port", "priority", "bytes"],
                            {"time_ns": int, "port": int, "priority": int, "bytes": int})
    times = sorted({r["time_ns"] for r in rows})
    per_t = dict.fromkeys(times, 0)
    for r in rows:
        if r["node"] == node and r["port"] == port and (priority is None or r["priority"] == priority):
            per_t[r["time_ns"]] += r["bytes"]
    return [(t * 1e-9, per_t[t]) for t in times]


def flows(run_dir: str):
    return rundir.read_rows(run_dir, rundir.FLOWS_CSV,
                            ["flow_id", "src", "dst", "bytes", "start_ns", "sent_bytes",
                             "delivered_bytes", "dropped_bytes"],
                            {"flow_id": int, "bytes": int, "start_ns": int, "sent_bytes": int,
                             "delivered_bytes": int, "dropped_bytes": int})


def links(run_dir: str):
    return rundir.read_rows(run_dir, rundir.LINKS_CSV,
                            ["node", "port", "peer", "peer_port", "rate_bps", "tx_bytes",
                             "rx_bytes", "tx_frames"],
                            {"port": int, "peer_port": int, "rate_bps": int, "tx_bytes": int,
                             "rx_bytes": int, "tx_frames": int})


def port_towards(run_dir: str, node: str, peer: str) -> int:
    ports = [l["port"] for l in links(run_dir) if l["node"] == node and l["peer"] == peer]
    if len(ports) != 1:
        raise RunDirError(rundir.LINKS_CSV,
                          f"expected one port of {node} facing {peer}, found {ports}")
    return ports[0]


def pfc_events(run_dir: str):
    return rundir.read_rows(run_dir, rundir.PFC_CSV,
                            ["time_ns", "node", "port", "priority", "event", "quanta"],
                            {"time_ns": int, "port": int, "priority": int, "quanta": int})


def rates(run_dir: str):
    return rundir.read_rows(run_dir, rundir.RATES_CSV, ["time_ns", "flow_id", "src", "rate_gbps"],
                            {"time_ns": int, "flow_id": int, "rate_gbps": float})
