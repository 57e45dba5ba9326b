"""Input and output helpers for the commands (see `subword.files`)."""

from subword.files import output, read_input, read_lines

__all__ = ["output", "read_input", "read_lines"]
