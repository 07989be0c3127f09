"""Start the dashboard: ``python dashboard.py [streamlit options]``, which ``bash run.sh
dashboard`` runs. It is ``streamlit run app.py`` with one difference.

Streamlit treats a folder named ``pages/`` next to the entry script as a legacy multipage app
until the script first calls ``st.navigation``. On a freshly started server the first visit
to a deep link (``/datasets``) was therefore resolved against the files in ``pages/``,
answered "Page not found" and only then shown. This app declares its pages with
``st.navigation`` alone, so the legacy detection is switched off before the server starts.
"""
from __future__ import annotations

import sys
from pathlib import Path

from streamlit.runtime.pages_manager import PagesManager
from streamlit.web import cli

ENTRY = Path(__file__).resolve().with_name("app.py")


def main(arguments: list[str]) -> None:
    """Serve ``app.py`` with Streamlit's ``run`` command and ``arguments`` as its options."""
    PagesManager.uses_pages_directory = False
    sys.argv = ["streamlit", "run", str(ENTRY), *arguments]
    cli.main()


if __name__ == "__main__":
    main(sys.argv[1:])
