"""tools/validate: simulated results against the analytic models, case by case (issue #10).

Modules: units (the simulator's value syntax), scenario (files, --set overrides, the parameters a
run reports), traces (the trace views the cases share, read strictly through fabrictools.rundir),
fluid (exact piecewise-linear queue integration), ballsbins (exact max-load distribution), ecmp
(the switches' ECMP choices, asked of fabric-run --hash), pathmodel (UB routes through an
explicit topology), tandem (exact FIFO timing along routes), core (checks, tolerances, verdicts,
running fabric-run), report, plotting, cases/ (one module per case), cli.
"""
