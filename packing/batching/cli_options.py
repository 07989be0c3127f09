"""Command-line options shared by the two commands that compare batching strategies,
``python -m packing batching`` and ``python -m throughput estimate``: ``--packs-per-batch``."""
from __future__ import annotations

import argparse

from ..plan import PackingPlan
from .simulate import packs_matching_batch_size


def _packs_value(text: str) -> int | None:
    if text == "match":
        return None
    try:
        packs = int(text)
    except ValueError:
        packs = 0
    if packs < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1 or 'match', got {text!r}")
    return packs


def add_packs_per_batch(parser: argparse.ArgumentParser) -> None:
    """Add the ``--packs-per-batch N|match`` option to ``parser`` (default None: 'match').

    >>> parser = argparse.ArgumentParser()
    >>> add_packs_per_batch(parser)
    >>> parser.parse_args(["--packs-per-batch", "4"]).packs_per_batch, parser.parse_args([]).packs_per_batch
    (4, None)
    """
    parser.add_argument("--packs-per-batch", type=_packs_value, default=None, metavar="N|match",
                        help="packing row: packs per batch (default 'match': as many as carry about --batch-size "
                             "graphs on average, so packing takes about as many steps per epoch as the batches)")


def packs_per_batch(args: argparse.Namespace, plan: PackingPlan | None, batch_size: int) -> int:
    """``--packs-per-batch`` resolved for ``plan``.

    Args:
        args: parsed arguments with ``packs_per_batch`` (:func:`add_packs_per_batch`).
        plan: the packing row's plan; None: the row packs into the dynamic batching target.
        batch_size: graphs per batch of the batching strategies.

    Returns:
        The number given; for 'match', :func:`packs_matching_batch_size`; without a plan, 1.

    Raises:
        ValueError: a number was given without a plan (it would not apply).

    >>> packs_per_batch(argparse.Namespace(packs_per_batch=None), None, 32)
    1
    """
    if plan is None:
        if args.packs_per_batch is not None:
            raise ValueError("--packs-per-batch applies to packs of chosen limits; give --max-nodes, --max-edges or "
                             "--max-graphs (or a configuration with a plan), or leave it out: without limits the "
                             "packing row packs into the dynamic batching target, one pack per batch.")
        return 1
    if args.packs_per_batch is None:
        return packs_matching_batch_size(plan, batch_size)
    return args.packs_per_batch
