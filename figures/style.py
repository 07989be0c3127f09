"""Layout shared by every figure, and user text made safe for plotly's strings."""
import html

import numpy as np

LAYOUT = dict(margin=dict(l=60, r=20, t=50, b=50), template="plotly_white")
#: A value axis turns logarithmic when its largest value is this many times its median one:
#: on a linear axis one outlier (static-constant's 28,416-node batches, a 192 s extrapolated
#: epoch next to 25 s ones) leaves every other box or bar a few pixels wide.
OUTLIER_FACTOR = 5.0


def needs_log_axis(values: object) -> bool:
    """Whether an axis of these (positive) values needs a log scale (``OUTLIER_FACTOR``).

    >>> needs_log_axis([25, 26, 24, 192]), needs_log_axis([25, 26, 30])
    (True, False)
    """
    shown = np.asarray(values, dtype=float)
    shown = shown[np.isfinite(shown) & (shown > 0)]
    return bool(shown.size) and float(shown.max()) > OUTLIER_FACTOR * float(np.median(shown))


def plain(text: object) -> str:
    """``text`` as plotly shows it verbatim: plotly reads ``<a href>``, ``<b>`` and ``<br>`` in
    titles, names and hover text as markup (a dataset named ``<a href='...'>`` would become
    a link), and turns the escaped characters back into what was typed.

    >>> plain("<a href='https://evil.example/'>x</a>")
    "&lt;a href='https://evil.example/'&gt;x&lt;/a&gt;"
    """
    return html.escape(str(text), quote=False)
