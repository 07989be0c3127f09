"""Dashboard pages (run by ``st.navigation`` in ``app.py``) and their shared UI helpers.

Only the files that ``app.py`` lists are pages; ``state``, ``cache``, ``widgets`` and
``figures`` are helper modules. All packing logic lives in ``packing/`` and all dataset
logic in ``data_loaders/``.
"""
