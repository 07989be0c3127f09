"""The engine's version, written into every exported configuration."""
__version__ = "0.3.0"
