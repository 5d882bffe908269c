"""The transcript: append-only, numbered, and always readable after a crash."""

from __future__ import annotations

from physvec.runstore.transcript import EventType, Transcript, read_events


def test_events_are_numbered_in_order_and_read_back(tmp_path):
    transcript = Transcript(tmp_path / "t.jsonl")
    transcript.append(EventType.RUN_STARTED, task_id="x")
    transcript.append(EventType.NODE_STARTED, node="plan", step=1, attempt=1)
    events = read_events(tmp_path / "t.jsonl")
    assert [e.seq for e in events] == [0, 1]
    assert events[1].type is EventType.NODE_STARTED and events[1].node == "plan" and events[1].data == {"attempt": 1}


def test_a_half_written_line_is_skipped_then_cut_before_the_next_append(tmp_path):
    path = tmp_path / "t.jsonl"
    Transcript(path).append(EventType.RUN_STARTED)
    with path.open("ab") as stream:
        stream.write(b'{"seq": 1, "time": 0, "type": "node_sta')  # a crash mid-write
    assert len(read_events(path)) == 1
    reopened = Transcript(path)
    reopened.append(EventType.RUN_RESUMED)
    assert [(e.seq, e.type) for e in read_events(path)] == [(0, EventType.RUN_STARTED), (1, EventType.RUN_RESUMED)]


def test_listeners_hear_every_event(tmp_path):
    heard = []
    transcript = Transcript(tmp_path / "t.jsonl")
    transcript.subscribe(heard.append)
    transcript.append(EventType.PLAN, node="plan", step=1)
    assert [e.type for e in heard] == [EventType.PLAN]


def test_a_reopened_transcript_continues_the_numbering(tmp_path):
    path = tmp_path / "t.jsonl"
    Transcript(path).append(EventType.RUN_STARTED)
    Transcript(path).append(EventType.RUN_RESUMED)
    assert [e.seq for e in read_events(path)] == [0, 1]


def test_a_garbage_line_never_stops_a_reader_and_the_next_writer_quarantines_it_with_its_offset(tmp_path):
    import json

    from physvec.runstore.transcript import quarantine_path

    path = tmp_path / "t.jsonl"
    Transcript(path).append(EventType.RUN_STARTED)
    offset = path.stat().st_size
    with path.open("ab") as stream:
        stream.write(b"\xff not an event \x00\n")
    assert [e.type for e in read_events(path)] == [EventType.RUN_STARTED]
    Transcript(path).append(EventType.RUN_RESUMED)
    events = read_events(path)
    assert [e.seq for e in events] == [0, 1, 2]
    assert events[1].type is EventType.TRANSCRIPT_QUARANTINE and events[1].data["offsets"] == [offset]
    quarantined = [json.loads(line) for line in quarantine_path(path).read_text().splitlines()]
    assert quarantined == [{"offset": offset, "text": "\ufffd not an event \x00\n"}]
    assert b"not an event" not in path.read_bytes()
