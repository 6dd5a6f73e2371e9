"""Exact event-by-event timing of frames through store-and-forward FIFO links.

The simulator's links (fabric-net-device.cc, fabric-channel.cc) are store-and-forward FIFOs: a
frame starts when it has fully arrived and the port is free, occupies the port for
ceil((bytes + wire_overhead)·8 / rate) ps, and reaches the next node `delay` after its last bit
left. That is all a tandem of FIFO queues needs:

    start   = max(arrival, link free)
    end     = start + frame time          (the link is free again)
    arrival at the next hop = end + delay

Frames are processed in time order with a heap (ties: the frame injected first goes first), so
where paths merge (a switch's egress toward the receiver) the queue is served in arrival order,
exactly like the simulator's FIFO egress queue. Everything is in integer picoseconds.
"""

import heapq


class TLink:
    def __init__(self, name, rate_bps, delay_ps, wire_overhead=0):
        self.name = name
        self.rate_bps = int(rate_bps)
        self.delay_ps = int(delay_ps)
        self.wo = int(wire_overhead)
        self.free = 0

    def tx_ps(self, frame_bytes):
        bits = (frame_bytes + self.wo) * 8
        return -(-bits * 10 ** 12 // self.rate_bps)


def run(frames):
    """frames: list of dicts {release (ps), bytes, route [TLink, ...]} (each frame's first link
    sees it at `release`). Returns per frame: dict with 'arrive' (ps, at the end of its route),
    'starts' [(link name, start ps)] per hop. Link state (free time) is kept in the TLink objects,
    so call with fresh links per computation."""
    out = [dict(starts=[], arrive=None) for _ in frames]
    heap = [(f["release"], i, i, 0) for i, f in enumerate(frames)]
    heapq.heapify(heap)
    while heap:
        t, _, i, hop = heapq.heappop(heap)
        f = frames[i]
        if hop == len(f["route"]):
            out[i]["arrive"] = t
            continue
        link = f["route"][hop]
        start = max(t, link.free)
        end = start + link.tx_ps(f["bytes"])
        link.free = end
        out[i]["starts"].append((link.name, start))
        heapq.heappush(heap, (end + link.delay_ps, i, i, hop + 1))
    return out


def reorder(arrivals, payloads):
    """In-order delivery of one message at the receiver.

    arrivals: arrival time (ps) of packet index k; payloads: payload bytes of packet k.
    Returns (peak held packets, peak held bytes, [(t, held packets, held bytes)] after every
    change, time the last packet is delivered in order)."""
    order = sorted(range(len(arrivals)), key=lambda k: (arrivals[k], k))
    got = [False] * len(arrivals)
    nxt = 0
    held_p = held_b = 0
    peak_p = peak_b = 0
    series = [(0, 0, 0)]
    for k in order:
        got[k] = True
        if k == nxt:
            while nxt < len(got) and got[nxt]:
                if nxt != k:
                    held_p -= 1
                    held_b -= payloads[nxt]
                nxt += 1
        else:
            held_p += 1
            held_b += payloads[k]
            peak_p = max(peak_p, held_p)
            peak_b = max(peak_b, held_b)
        series.append((arrivals[k], held_p, held_b))
    return peak_p, peak_b, series, max(arrivals)
