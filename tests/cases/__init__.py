"""The cases of tests/run.py, one file per room (see run.py's docstring)."""
