"""The native headers (package data): found through this package's __path__."""
