"""The switches' ECMP choices, asked of the simulator itself (`fabric-run --hash`).

A switch sends a frame to group[FabricFlowHash(frame, salt) % len(group)]. Rather than a second
implementation of that hash, the cases write queries in the syntax `fabric-run --hash --help`
describes and read the answers, thousands per process. The queries name their inputs the way a
scenario determines them — switch:HASH_SALT:NODE for the salt the builder gives a switch,
host:I for host I's address, flow:ID:SEED for the entropy the runner gives flow ID, and
flow:ID:SEED:K for the K-th entropy an oblivious UB sprayer sends above it — so the builder's
and the runner's formulas are not copied here either.
"""

import gc
import subprocess
from typing import Dict, List, NamedTuple, Optional, Sequence, Union

ROCE_UDP_PORT = 4791
UB_UDP_PORT = 4792
UDP = 17


class EcmpQueryError(RuntimeError):
    """fabric-run --hash rejected a query or did not answer every one."""


class Answer(NamedTuple):
    hash: int
    index: Optional[int]  # the position in an ECMP group of the query's group=M, else None
    resolved: str         # "SALT SRC_IP DST_IP SRC_PORT DST_PORT PROTOCOL [ub]", numbers only

    @property
    def src_port(self) -> int:
        """The entropy the frame carries (a flow: form resolved)."""
        return int(self.resolved.split()[3])


def switch_salt(hash_salt: int, node: int) -> str:
    """The salt of the switch at topology index NODE under switch.hash_salt HASH_SALT."""
    return f"switch:{hash_salt}:{node}"


def host(index: int) -> str:
    """The address of host INDEX (0-based, in topology order)."""
    return f"host:{index}"


def flow_entropy(flow: int, seed: int, k: Optional[int] = None) -> str:
    """The entropy (UDP source port) of flow FLOW in a run of seed SEED; with K, the K-th
    entropy above it (what UB oblivious spraying sends as packet K's when K < E)."""
    return f"flow:{flow}:{seed}" if k is None else f"flow:{flow}:{seed}:{k}"


def query(salt: Union[int, str], src: Union[int, str], dst: Union[int, str],
          src_port: Union[int, str], dst_port: int = ROCE_UDP_PORT, protocol: int = UDP,
          ub: bool = False, group: Optional[int] = None) -> str:
    """One query line. src and dst are addresses (a.b.c.d or host(i)); salt and src_port
    numbers or the forms above; group: also ask for the position in a group of that size."""
    line = f"{salt} {src} {dst} {src_port} {dst_port} {protocol}"
    if ub:
        line += " ub"
    if group is not None:
        line += f" group={group}"
    return line


def ask(fabric_run: str, queries: Sequence[str],
        memo: Optional[Dict[str, Answer]] = None) -> List[Answer]:
    """The answers to QUERIES, in order, from one `fabric-run --hash` process.

    With MEMO (a dict kept by the caller), queries answered before are not asked again and new
    answers are added to it: callers that repeat the same few queries keep one.
    """
    todo = list(dict.fromkeys(q for q in queries if q not in memo)) if memo is not None \
        else list(queries)
    if todo:
        proc = subprocess.run([fabric_run, "--hash"], input="\n".join(todo) + "\n",
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise EcmpQueryError(f"{fabric_run} --hash exited {proc.returncode}: "
                                 f"{proc.stderr.strip()}")
        lines = proc.stdout.splitlines()
        if len(lines) != len(todo):
            raise EcmpQueryError(f"{fabric_run} --hash answered {len(lines)} of {len(todo)} "
                                 "queries")
        answers = _parse(lines)
        if memo is None:
            return answers
        memo.update(zip(todo, answers))
    return [memo[q] for q in queries]


def _parse(lines: Sequence[str]) -> List[Answer]:
    # A batch is up to millions of small objects: with the cyclic garbage collector paused
    # while they are built (they hold no cycles), parsing takes a third of the time.
    enabled = gc.isenabled()
    gc.disable()
    try:
        answers = []
        for line in lines:
            hash_text, index_text, resolved = line.split(" ", 2)
            answers.append(Answer(int(hash_text), None if index_text == "-" else int(index_text),
                                  resolved))
        return answers
    finally:
        if enabled:
            gc.enable()
