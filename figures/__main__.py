"""``python -m figures``: see :mod:`figures.cli`."""
import sys

from .cli import run

sys.exit(run())
