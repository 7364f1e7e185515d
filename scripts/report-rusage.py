#!/usr/bin/env python3
"""CPU time of the report, split between its own process and the processes
it forks (sections or figures drawn in parallel): runs ``python -m
mptlab.report ARGS`` in this interpreter, then prints ``getrusage`` of
itself and of its (waited-for) children. With two idle cores the report's
critical path is about the parent's time plus the children's divided by
the number of workers.

    PYTHONPATH=python python scripts/report-rusage.py DIR --jobs 2

Used for docs/performance.md, "Session 12". Standard library only.
"""

import resource
import runpy
import sys

sys.argv = ["mptlab.report"] + sys.argv[1:]
try:
    runpy.run_module("mptlab.report", run_name="__main__")
except SystemExit as e:
    code = e.code
else:
    code = 0
me = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"parent {me.ru_utime + me.ru_stime:.2f} s CPU, children {kids.ru_utime + kids.ru_stime:.2f} s CPU",
      file=sys.stderr)
sys.exit(code)
