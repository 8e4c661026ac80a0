"""Tessel's exception."""


class TesselError(RuntimeError):
    """A Tessel tool, database or runtime call failed; the message says why
    (for compile errors: tessel-opt's diagnostics, with their locations)."""
