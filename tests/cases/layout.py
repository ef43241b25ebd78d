"""The layout of the sources: rooms and layers in the order tool/README.md gives them."""
import os
import subprocess
import sys

from run import B, Room, expect

room = Room("layout")


def test_layering():
    """tests/layering.py: no #include line or call between the built objects goes against the
    order of the rooms and of the wait-state layers in tool/README.md."""
    r = subprocess.run([sys.executable, "tests/layering.py", B], capture_output=True,
                       text=True, timeout=300)
    print(r.stdout, end="")
    expect(r.returncode == 0 and "0 upward" in r.stdout,
           "layering: %s" % (r.stdout + r.stderr)[-1500:])


room.case("layout/rooms and layers as tool/README.md orders them", test_layering)
