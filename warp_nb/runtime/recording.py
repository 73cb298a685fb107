"""Where an active wp.Tape registers itself, so launches and copies can report to it without
the array and launch modules knowing about tapes."""

#: The innermost `with wp.Tape():` block being recorded, or None.
tape = None

#: The wp.ScopedCapture (or capture_begin) being recorded, or None: launches, copies and fills
#: are recorded into it instead of running (capture.py).
capture = None

#: A capture suspended by capture_pause (its graph), until capture_resume makes it `capture` again.
paused_capture = None


class Operation:
    """A recorded operation other than a launch (a fill, a copy, a conditional): `run` is what a
    replay runs; `kind` and `fields` say what it does, for a graph saved with wp.capture_save
    (launch/apic_save.py). Kinds: "zero" (array), "fill" (array, value: the element's bytes),
    "copy" (dest, src, dest_offset, src_offset, count: in elements), "if" (condition, on_true,
    on_false: graphs), "while" (condition, body: a graph), "host" (what: a host-side step on process-local
    memory, such as a Bvh refit, which cannot be saved), "check" (an argument check a saved graph omits)."""

    __slots__ = ("fields", "kind", "run")

    def __init__(self, kind: str, run, **fields):
        self.kind, self.run, self.fields = kind, run, fields

    def launch(self) -> None:
        self.run()
