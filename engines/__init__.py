"""Pure rules engines. Nothing here does I/O or imports server/ or clients/."""
