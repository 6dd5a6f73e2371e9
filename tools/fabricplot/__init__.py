"""Shared code for the ns3-fabric result tools (tools/plot, tools/summary).

The package only reads what `fabric-run --out DIR` writes (see docs in DESIGN.md, "Outputs"):
rundata parses the files, plots draws them (sweepplot: tools/plot --sweep, from a tools/sweep
sweep.csv), report prints the text summary, synth fabricates a
plausible run directory so the tools can be tested without the simulator, and selftest does that.
"""
