"""The Python tools around build/fabric-run, as one package (tools/README.md).

  rundir    reads a run directory (summary.json and every CSV trace, .csv.gz too): every tool
            reads runs through it
  repo      where the repository and its build/ are
  plot      tools/plot and tools/summary
  sweep     tools/sweep
  validate  tools/validate (the validation cases; ecmp asks fabric-run --hash for the switches'
            ECMP choices)
  studies   what tools/studies/* and the other study scripts share

The entry scripts (tools/plot, tools/sweep, ...) import it from the directory they sit in, which
Python puts first on sys.path; tools/studies/fabrictools and tests/tools/fabrictools are
symbolic links to it for the scripts there.
"""
