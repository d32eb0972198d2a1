"""Pure rules engines. Nothing here does I/O (beyond reading its own data and build files at import)
or imports server/ or clients/."""
from . import native  # noqa: F401  (first: it decides between the mypyc build and the .py files)
