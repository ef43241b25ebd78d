"""The unit tests: each C program tests/unit/test_*.c (one per room's logic without MPI: base,
warn, profile, predict, and the wait states' arithmetic; built into $B/tests/unit) exits 0. The list comes from the sources, so a binary left
in $B by a test since removed or renamed does not run, and a missing one fails."""
import glob
import os
import subprocess

from run import B, Room, TIMEOUT, expect

room = Room("unit")


def test_unit(binary):
    p = subprocess.run(["timeout", str(TIMEOUT), binary], capture_output=True, text=True)
    expect(p.returncode == 0, (p.stdout + p.stderr).strip()[-2000:])


for _src in sorted(glob.glob("tests/unit/test_*.c")):
    _name = os.path.basename(_src)[:-2]
    room.case("unit/" + _name, lambda b=os.path.join(B, "tests/unit", _name): test_unit(b))
