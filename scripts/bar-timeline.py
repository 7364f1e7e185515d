#!/usr/bin/env python3
"""How accurate a progress bar is: run a command under a pseudo-terminal (so
its indicatif bar is drawn), timestamp every redraw, and print the bar's
fill at 10 %, 20 %, ..., 90 % of the command's wall time. An accurate bar
shows about the same share as the time elapsed.

    python scripts/bar-timeline.py mptlab reproduce all --only kuhig --runs 5 --no-report --out DIR

Used for docs/report.md, "Progress bar". Standard library only.
"""

import os
import pty
import re
import sys
import time

# the bar: 40 cells of the template's {bar:40} after "] "; filled cells are
# every character but the empty-cell one
BAR = re.compile(r"\]\s(\S{40})\s")
RUNS = re.compile(r"(\d+)/(\d+) runs")


def main(argv) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    t0 = time.time()
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    buf = b""
    samples = []  # (seconds, filled share, "done/total" or None)
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        buf += chunk
        txt = buf.decode("utf-8", "replace")
        bars = BAR.findall(txt)
        if bars:
            fill = sum(1 for c in bars[-1] if c not in "░-. ") / 40
            runs = RUNS.findall(txt)
            samples.append((time.time() - t0, fill, "/".join(runs[-1]) if runs else None))
            buf = buf[-2000:]
    _, status = os.waitpid(pid, 0)
    total = time.time() - t0
    print(f"total {total:.1f} s wall, exit status {os.waitstatus_to_exitcode(status)}")
    for q in range(1, 10):
        seen = [s for s in samples if s[0] <= q / 10 * total]
        if seen:
            print(f"{q * 10:3d} % of the wall time: bar {seen[-1][1] * 100:5.1f} %, runs {seen[-1][2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
