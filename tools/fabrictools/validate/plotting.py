"""One PNG per case where a curve says more than a number (small: ~100 dpi)."""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..plot import figpage  # noqa: E402

DPI = 90


def _save(fig, out_dir, name):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, name)
    figpage.capture(fig, name)  # the same numbers, for the interactive report.html
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return name


def _time_axis(t_max):
    if t_max >= 1e-3:
        return 1e3, "ms"
    if t_max >= 1e-6:
        return 1e6, "us"
    return 1e9, "ns"


def queue_integrator_figure(out_dir, case_id, subs):
    fig, axes = plt.subplots(len(subs), 1, figsize=(8, 2.4 * len(subs)), sharex=True)
    axes = axes if len(subs) > 1 else [axes]
    for ax, s in zip(axes, subs):
        period = s["period"]
        k, unit = _time_axis(period)
        t = [x for x, _ in s["series"] if x <= 0.6 * period]
        q = [y / 1e6 for x, y in s["series"] if x <= 0.6 * period]
        ax.plot([x * k for x in t], q, color="tab:blue", lw=2.2, label="simulated Q (queues.csv)")
        pts = [(x, y) for x, y in s["points"] if x <= 0.6 * period]
        ax.plot([x * k for x, _ in pts], [y / 1e6 for _, y in pts], color="black", lw=1,
                ls="--", label="analytic: dQ/dt = λ(t) − B")
        lam_t, lam_v = [], []
        edges = sorted({e for a, b, _ in s["intervals"] for e in (a, b) if e <= 0.6 * period} | {0.0})
        for a, b in zip(edges, edges[1:]):
            lam = sum(r for x, y, r in s["intervals"] if x <= a and y >= b)
            lam_t += [a * k, b * k]
            lam_v += [lam / 1e9, lam / 1e9]
        ax2 = ax.twinx()
        ax2.plot(lam_t, lam_v, color="tab:orange", lw=0.8, alpha=0.7, label="λ(t)")
        ax2.axhline(s["B"] / 1e9, color="tab:red", lw=0.6, ls=":")
        ax2.set_ylabel("λ (GB/s)", color="tab:orange")
        ax2.set_ylim(0, 2.5 * s["B"] / 1e9)
        ax.set_ylabel("queue (MB)")
        ax.set_title(s["sub"], fontsize=9)
        ax.legend(loc="upper right", fontsize=7)
    axes[-1].set_xlabel(f"time ({unit})")
    fig.tight_layout()
    return _save(fig, out_dir, f"{case_id}.png")


def series_vs_model_figure(out_dir, name, panels, ylabel="queue (KiB)", yscale=1024.0):
    """panels: [{title, series [(t, q)], model [(t, q)], marks {label: t}}]."""
    n = len(panels)
    cols = 2 if n > 1 else 1
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 2.5 * rows), squeeze=False)
    for i, p in enumerate(panels):
        ax = axes[i // cols][i % cols]
        t_max = max(t for t, _ in p["series"]) if p["series"] else 1e-6
        k, unit = _time_axis(t_max)
        ax.plot([t * k for t, _ in p["series"]], [q / yscale for _, q in p["series"]],
                color="tab:blue", lw=1.6, label="simulated")
        if p.get("model"):
            ax.plot([t * k for t, _ in p["model"]], [q / yscale for _, q in p["model"]],
                    color="black", lw=0.9, ls="--", label="analytic")
        for label, t in (p.get("marks") or {}).items():
            ax.axvline(t * k, color="tab:red", lw=0.6, ls=":")
            ax.text(t * k, ax.get_ylim()[1] * 0.95, label, fontsize=6, rotation=90, va="top")
        ax.set_title(p["title"], fontsize=8)
        ax.set_xlabel(f"time ({unit})", fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6, loc="lower right")
    for j in range(n, rows * cols):
        axes[j // cols][j % cols].axis("off")
    fig.tight_layout()
    return _save(fig, out_dir, name)


def ecmp_figure(out_dir, name, panels):
    """panels: [{title, pmf_analytic {k: p}, pmf_sim {k: p}}]."""
    n = len(panels)
    cols = 3
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 2.6 * rows), squeeze=False)
    for i, p in enumerate(panels):
        ax = axes[i // cols][i % cols]
        ks = sorted(set(p["pmf_analytic"]) | set(p["pmf_sim"]))
        ks = [k for k in ks if p["pmf_analytic"].get(k, 0) > 1e-5 or p["pmf_sim"].get(k, 0) > 0]
        ax.bar([k - 0.2 for k in ks], [p["pmf_analytic"].get(k, 0) for k in ks], width=0.4,
               color="0.3", label="exact (balls into bins)")
        ax.bar([k + 0.2 for k in ks], [p["pmf_sim"].get(k, 0) for k in ks], width=0.4,
               color="tab:blue", label="switch hash, real headers")
        ax.set_title(p["title"], fontsize=9)
        ax.set_xlabel("flows on the busiest uplink", fontsize=8)
        ax.set_ylabel("probability", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    for j in range(n, rows * cols):
        axes[j // cols][j % cols].axis("off")
    fig.tight_layout()
    return _save(fig, out_dir, name)


def collectives_figure(out_dir, name, panels):
    """panels: [{title, lines: [{label, S [..], analytic [s], simulated [s], tol [s]}]}]:
    time vs server count, analytic line (with its tolerance band) and simulated markers."""
    n = len(panels)
    cols = 2 if n > 1 else 1
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 2.8 * rows), squeeze=False)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red"]
    for i, p in enumerate(panels):
        ax = axes[i // cols][i % cols]
        t_max = max(max(l["simulated"] + l["analytic"]) for l in p["lines"])
        k, unit = _time_axis(t_max)
        for j, l in enumerate(p["lines"]):
            c = colors[j % len(colors)]
            ax.plot(l["S"], [a * k for a in l["analytic"]], color=c, lw=0.9, ls="--",
                    label=f"{l['label']} analytic")
            ax.fill_between(l["S"], [(a - t) * k for a, t in zip(l["analytic"], l["tol"])],
                            [(a + t) * k for a, t in zip(l["analytic"], l["tol"])],
                            color=c, alpha=0.12, lw=0)
            ax.plot(l["S"], [s * k for s in l["simulated"]], color=c, marker="o", ls="none",
                    ms=4, label=f"{l['label']} simulated")
        ax.set_xscale("log", base=2)
        ax.set_title(p["title"], fontsize=8)
        ax.set_xlabel("servers S", fontsize=8)
        ax.set_ylabel(f"AllReduce time ({unit})", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6, loc="upper left")
    for j in range(n, rows * cols):
        axes[j // cols][j % cols].axis("off")
    fig.tight_layout()
    return _save(fig, out_dir, name)
