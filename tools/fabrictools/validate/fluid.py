"""The fluid queue: dQ/dt = λ(t) − B while Q > 0 (Q stays at 0 while λ ≤ B), capped at a
capacity C above which arrivals are dropped. Exact piecewise-linear integration: λ(t) is a sum
of constant-rate intervals, so Q(t) is linear between breakpoints and the returned points are
exact (no time stepping)."""

import math


def integrate(intervals, service, t_end, capacity=math.inf, q0=0.0, t0=0.0):
    """intervals: [(start_s, end_s, rate_Bps)]; service: B in B/s.

    Returns (points, dropped): points [(t, Q)] at every breakpoint, where Q hits 0 or the cap,
    and the bytes dropped at the cap.
    """
    cuts = {t0, t_end}
    for a, b, _ in intervals:
        for t in (a, b):
            if t0 < t < t_end:
                cuts.add(t)
    cuts = sorted(cuts)
    q = q0
    dropped = 0.0
    points = [(t0, q)]
    for a, b in zip(cuts, cuts[1:]):
        lam = sum(r for s, e, r in intervals if s <= a and e >= b)
        slope = lam - service
        t = a
        while t < b:
            if slope > 0 and q < capacity:
                t_hit = t + (capacity - q) / slope
                if t_hit < b:
                    q = capacity
                    t = t_hit
                    points.append((t, q))
                    continue
                q += slope * (b - t)
            elif slope > 0:  # at the cap: the excess is dropped
                dropped += slope * (b - t)
            elif slope < 0 and q > 0:
                t_hit = t + q / -slope
                if t_hit < b:
                    q = 0.0
                    t = t_hit
                    points.append((t, q))
                    continue
                q += slope * (b - t)
            t = b
        points.append((b, q))
    return points, dropped


def value_at(points, t):
    for (ta, qa), (tb, qb) in zip(points, points[1:]):
        if ta <= t <= tb:
            return qa if tb == ta else qa + (qb - qa) * (t - ta) / (tb - ta)
    return points[-1][1]


def peak(points, t_from=-math.inf, t_to=math.inf):
    """(Q_max, first time at the max, last time at the max) within [t_from, t_to]."""
    sel = [(t, q) for t, q in points if t_from <= t <= t_to]
    qmax = max(q for _, q in sel)
    at = [t for t, q in sel if q >= qmax * (1 - 1e-12)]
    return qmax, at[0], at[-1]


def empty_after(points, t):
    for ta, qa in points:
        if ta >= t and qa <= 0:
            return ta
    return math.inf
