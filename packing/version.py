"""The engine's version, recorded in every exported configuration (``tool.version``).

>>> __version__
'0.4.0'
"""

__version__ = "0.4.0"
