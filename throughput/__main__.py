"""``python -m throughput``: see :mod:`throughput.cli`."""
import sys

from .cli import run

sys.exit(run())
