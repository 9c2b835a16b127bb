"""srcad's version (in a module of its own, so srcad's modules can read it at import)."""

__version__ = "0.1.0"
