"""tools/validate: simulated results against the analytic models, case by case (issue #10).

Modules: units (the simulator's value syntax), scenario (files, --set overrides, the parameters a
run reports), traces (strict trace readers), fluid (exact piecewise-linear queue integration),
ballsbins (exact max-load distribution), ecmphash (the switches' ECMP hash), core (checks,
tolerances, verdicts, running fabric-run), report, plotting, cases/ (one module per case), cli.
"""
