"""All-stream timing's arithmetic on chrome-trace events (CPU): the span runs from the first GPU activity after
the timed call's mark to the last one's end, on any stream; the flush before the mark does not count."""

from __future__ import annotations

from validator.evaluate import stream_span


def event(cat: str, ts: float, dur: float, stream: int = 7, name: str = "k") -> dict:
    return {"cat": cat, "ts": ts, "dur": dur, "name": name, "args": {"stream": stream}}


def test_the_span_covers_every_stream_from_the_first_start_to_the_last_end_after_the_mark():
    events = [
        event("kernel", 0.0, 50.0, name="flush"),  # the L2 flush, before the call's mark
        {"cat": "user_annotation", "name": stream_span.MARK, "ts": 100.0, "dur": 5.0},
        event("kernel", 110.0, 20.0),
        event("kernel", 115.0, 300.0, stream=9),  # a side stream, outlasting the main one
        event("gpu_memcpy", 130.0, 10.0),
        event("cpu_op", 90.0, 1000.0),  # host activity never counts
    ]
    assert stream_span.span_of(events) == (415.0 - 110.0) / 1e3


def test_no_mark_or_no_gpu_activity_after_it_gives_no_span():
    assert stream_span.span_of([event("kernel", 0.0, 5.0)]) is None
    mark = {"cat": "user_annotation", "name": stream_span.MARK, "ts": 10.0}
    assert stream_span.span_of([event("kernel", 0.0, 5.0), mark]) is None


def test_events_alone_miss_side_stream_work_that_the_span_sees():
    """The motivating case: the main stream's events see 20 us; the call's work ends 300 us later elsewhere."""
    mark = {"cat": "user_annotation", "name": stream_span.MARK, "ts": 0.0}
    main, side = event("kernel", 5.0, 20.0, stream=7), event("kernel", 6.0, 300.0, stream=9)
    assert stream_span.span_of([mark, main, side]) > 10 * stream_span.span_of([mark, main])
