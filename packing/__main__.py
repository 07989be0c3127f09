"""``python -m packing``: see :mod:`packing.cli`."""
import sys

from .cli import run

sys.exit(run())
