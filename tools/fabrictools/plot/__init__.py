"""tools/plot and tools/summary: figures and the text summary of a fabric-run output directory.

They only read what `fabric-run --out DIR` writes, through fabrictools.rundir: loaders turns the
files into the series the figures need (tolerating missing or damaged files), plots draws them
(sweepplot: tools/plot --sweep, from a tools/sweep sweep.csv), report prints the text summary,
and synth fabricates a plausible run directory so that tests/tools/plot_selftest.py can test the
tools without the simulator.
"""
