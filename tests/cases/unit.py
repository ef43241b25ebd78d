"""The unit tests: each C program of tests/unit (built into $B/tests/unit) exits 0."""
import glob
import os
import subprocess

from run import B, Room, TIMEOUT, expect

room = Room("unit")


def test_unit(binary):
    p = subprocess.run(["timeout", str(TIMEOUT), binary], capture_output=True, text=True)
    expect(p.returncode == 0, (p.stdout + p.stderr).strip()[-2000:])


for _b in sorted(glob.glob(os.path.join(B, "tests/unit/test_*"))):
    room.case("unit/" + os.path.basename(_b), lambda b=_b: test_unit(b))
