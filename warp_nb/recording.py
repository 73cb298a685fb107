"""Where an active wp.Tape registers itself, so launches and copies can report to it without
the array and launch modules knowing about tapes."""

#: The innermost `with wp.Tape():` block being recorded, or None.
tape = None
