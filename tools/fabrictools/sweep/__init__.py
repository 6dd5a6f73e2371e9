"""tools/sweep: run a scenario over a grid of parameter values with build/fabric-run.

grid expands `--grid KEY=V1,V2,...` options into points and names their directories, runner runs
the points in parallel (progress, resume markers, clean interruption), table turns the finished
point directories into the tidy sweep.csv, and cli ties them together. tools/plot --sweep
(fabrictools/plot/sweepplot.py) draws sweep.csv; tests/tools/sweep_selftest.py tests both.
"""
