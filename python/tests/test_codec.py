"""The codecs: newline-delimited JSON (stdio framing) and server-sent events, whatever the chunking.

Field cases 001 (chunk framing), 005 (UTF-8 at chunk edges, line-content traps) and 013 (CRLF,
blank lines) at the decoder; hypothesis property tests over random splits, bad UTF-8 and
over-long lines.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from mcpgen_runtime.codec import BadLine, LineTooLong, NdjsonDecoder, SseParser, peek_line, sse_event
from mcpgen_runtime.jsonrpc import encode

M1 = b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"warming up"}}\n'
M2 = b'{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"demo-server","version":"1.0.0"}}}\n'
M3 = b'{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}\n'
STREAM = M1 + M2 + M3


def feed(chunks: list[bytes], max_line_bytes: int = 16 * 1024 * 1024) -> tuple[list[object], bool]:
    d = NdjsonDecoder(max_line_bytes)
    out: list[object] = []
    for c in chunks:
        out.extend(d.feed(c))
    return out, d.end()


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    edges = [0, *sorted(set(cuts)), len(data)]
    return [data[a:b] for a, b in zip(edges, edges[1:])]


def test_001_split_coalesced_and_trickled_chunks_give_the_same_three_messages() -> None:
    assert (len(M1), len(M2), len(M3), len(STREAM)) == (97, 139, 47, 283)
    expected = [json.loads(M1), json.loads(M2), json.loads(M3)]
    for chunks in (split_at(STREAM, [50, 117]), [STREAM], [STREAM[i : i + 1] for i in range(len(STREAM))]):
        out, incomplete = feed(chunks)
        assert out == expected
        assert incomplete is False


def test_001_a_truncated_frame_is_never_parsed_and_is_reported_at_end() -> None:
    out, incomplete = feed([STREAM[:127]])
    assert out == [json.loads(M1)]
    assert incomplete is True


def test_001_a_5_mib_line_is_one_message_however_it_is_chunked() -> None:
    text = "a" * 5_242_880
    line = ('{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"' + text + '"}]}}\n').encode()
    for chunks in ([line], [line[i : i + 65536] for i in range(0, len(line), 65536)], split_at(line, [4_194_305])):
        out, _ = feed(chunks)
        assert len(out) == 1
        assert isinstance(out[0], dict) and out[0]["result"]["content"][0]["text"] == text


def test_001_the_size_limit_applies_to_the_whole_line_for_every_chunking() -> None:
    line = b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"pad":"' + b"x" * 200 + b'"}}\n'
    for limit in (len(line) - 2, len(line) - 3, 50):
        verdicts = set()
        for chunks in ([line], [line[i : i + 1] for i in range(len(line))], split_at(line, [10, 100])):
            out, _ = feed(chunks + [M3], limit)
            verdicts.add(tuple(type(x).__name__ if not isinstance(x, dict) else "msg" for x in out))
            assert isinstance(out[0], LineTooLong) and out[0].size == len(line) - 1
        assert len(verdicts) == 1
    ok, _ = feed([line], len(line) - 2)
    assert isinstance(ok[0], LineTooLong)
    ok, _ = feed([line], len(line) - 1)
    assert isinstance(ok[0], dict)


def test_001_an_over_long_line_shows_its_id_and_method_in_its_head() -> None:
    out, _ = feed([b'{"jsonrpc":"2.0","id":"r-9","method":"tools/call","params":{"x":"' + b"y" * 500 + b'"}}\n'], 100)
    assert isinstance(out[0], LineTooLong)
    assert peek_line(out[0].head) == ("r-9", True)
    out, _ = feed([b'{"jsonrpc":"2.0","id":12,"result":{"x":"' + b"y" * 500 + b'"}}\n'], 100)
    assert isinstance(out[0], LineTooLong) and peek_line(out[0].head) == (12, False)


LINE5 = '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"café — 中文 😀"}]}}\n'.encode()


def test_005_multi_byte_characters_split_at_every_offset_decode_the_same() -> None:
    assert len(LINE5) == 95
    assert LINE5[71:73] == "é".encode() and LINE5[85:89] == "😀".encode()
    for cut in (72, 75, 76, 79, 86, 87, 88):
        out, _ = feed(split_at(LINE5, [cut]))
        assert len(out) == 1 and isinstance(out[0], dict)
        assert out[0]["result"]["content"][0]["text"] == "café — 中文 😀"
    out, _ = feed([LINE5[i : i + 1] for i in range(len(LINE5))])
    assert isinstance(out[0], dict) and out[0]["result"]["content"][0]["text"] == "café — 中文 😀"


def test_005_line_separators_escaped_newlines_and_bad_bytes() -> None:
    out, _ = feed(['{"jsonrpc":"2.0","method":"x","params":{"text":"a\u2028b\u2029c"}}\n'.encode()])
    assert isinstance(out[0], dict) and out[0]["params"]["text"] == "a\u2028b\u2029c"
    out, _ = feed([b'{"jsonrpc":"2.0","method":"x","params":{"text":"line1\\nline2"}}\n'])
    assert isinstance(out[0], dict) and out[0]["params"]["text"] == "line1\nline2"
    out, _ = feed([b'{"jsonrpc":"2.0","method":"x","params":{"text":"\xff"}}\n' + M3])
    assert isinstance(out[0], BadLine) and out[0].error.code == -32700
    assert out[1] == json.loads(M3)


def test_005_the_writer_escapes_line_breaks_and_ends_each_frame_with_one_lf() -> None:
    frame = encode({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "first\nsecond\r\nthird\u2028fourth"}]}}) + b"\n"
    assert frame.count(b"\n") == 1 and frame.endswith(b"\n")
    assert b"\r" not in frame
    frame.decode("utf-8")
    assert json.loads(frame)["result"]["content"][0]["text"] == "first\nsecond\r\nthird\u2028fourth"
    # a lone surrogate (which UTF-8 cannot carry) is escaped, not written as bad bytes
    assert encode({"x": "\ud800"}).decode("ascii") == '{"x":"\\ud800"}'


def test_013_crlf_lines_and_blank_lines() -> None:
    data = M2.replace(b"\n", b"\r\n") + b"\r\n" + b"   \t\r\n" + M1.replace(b"\n", b"\r\n")
    for chunks in ([data], split_at(data, [len(M2)]), [data[i : i + 1] for i in range(len(data))]):
        out, incomplete = feed(chunks)
        assert out == [json.loads(M2), json.loads(M1)]
        assert incomplete is False


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_random_splits_never_change_the_messages(cuts: list[int]) -> None:
    out, incomplete = feed(split_at(STREAM, cuts))
    assert out == [json.loads(M1), json.loads(M2), json.loads(M3)]
    assert not incomplete


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=64), st.lists(st.integers(min_value=0, max_value=200), max_size=6))
def test_random_bad_bytes_spoil_only_their_own_line(junk: bytes, cuts: list[int]) -> None:
    junk = junk.replace(b"\n", b"")
    data = M1 + junk + b"\n" + M3
    out, _ = feed(split_at(data, [c for c in cuts if c <= len(data)]))
    assert out[0] == json.loads(M1)
    assert out[-1] == json.loads(M3)
    assert len(out) in (2, 3)
    if len(out) == 3:
        assert isinstance(out[1], (BadLine, dict, list, str, int, float)) or out[1] is None


@settings(max_examples=80, deadline=None)
@given(st.integers(min_value=1, max_value=400), st.integers(min_value=1, max_value=64))
def test_over_long_lines_are_dropped_whole_and_the_next_line_survives(extra: int, chunk: int) -> None:
    limit = 64
    long = b'{"jsonrpc":"2.0","id":1,"result":{"p":"' + b"z" * (limit + extra) + b'"}}\n'
    data = long + M3
    out, _ = feed([data[i : i + chunk] for i in range(0, len(data), chunk)], limit)
    assert isinstance(out[0], LineTooLong) and out[0].size == len(long) - 1
    assert out[1] == json.loads(M3)


def test_sse_parser_handles_any_line_ending_and_chunking() -> None:
    text = "id: 1\nretry: 500\ndata: {\"a\":1}\n\n: comment\r\nevent: message\r\ndata: x\r\ndata: y\r\n\r\ndata: last\r\r"
    for size in (1, 2, 3, 7, len(text)):
        p = SseParser()
        events = []
        for i in range(0, len(text), size):
            events.extend(p.feed(text[i : i + size]))
        assert [(e.data, e.id) for e in events] == [('{"a":1}', "1"), ("x\ny", "1"), ("last", "1")]
        assert p.retry == 500


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=30), min_size=1, max_size=5), st.integers(min_value=1, max_value=9))
def test_sse_encode_then_parse_round_trips(lines: list[str], size: int) -> None:
    data = "\n".join(lines)
    wire = (sse_event(data, id="e-1") + sse_event("next")).decode()
    p = SseParser()
    events = []
    for i in range(0, len(wire), size):
        events.extend(p.feed(wire[i : i + size]))
    assert [e.data for e in events] == [data, "next"]
    assert events[0].id == "e-1"
