"""Where an active wp.Tape registers itself, so launches and copies can report to it without
the array and launch modules knowing about tapes."""

#: The innermost `with wp.Tape():` block being recorded, or None.
tape = None

#: The wp.ScopedCapture (or capture_begin) being recorded, or None: launches, copies and fills
#: are recorded into it instead of running (capture.py).
capture = None
