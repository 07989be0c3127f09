"""Layout shared by every figure, and user text made safe for plotly's strings."""
import html

LAYOUT = dict(margin=dict(l=60, r=20, t=50, b=50), template="plotly_white")


def plain(text: object) -> str:
    """``text`` as plotly shows it verbatim: plotly reads ``<a href>``, ``<b>`` and ``<br>`` in
    titles, names and hover text as markup (a dataset named ``<a href='...'>`` would become
    a link), and turns the escaped characters back into what was typed.

    >>> plain("<a href='https://evil.example/'>x</a>")
    "&lt;a href='https://evil.example/'&gt;x&lt;/a&gt;"
    """
    return html.escape(str(text), quote=False)
