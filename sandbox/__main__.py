"""``python -m sandbox [options]``: the same command as ``relay sandbox``."""

from sandbox.cli import sandbox

if __name__ == "__main__":
    sandbox(prog_name="python -m sandbox")
