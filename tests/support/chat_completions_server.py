"""A real HTTP server on 127.0.0.1 that speaks the chat-completions protocol, for provider tests.

Its replies are fixtures: a queue of behaviours, each reply text, a reply with tool calls
({"content": ..., "tool_calls": [{"name", "args"}]}), or an injected fault ("429", "500", "timeout",
"malformed", "400_response_format": a 400 like a server that does not know structured output, or
"404_model": the model is not served).
A request with ``"stream": true`` is answered as llama.cpp and OpenAI do: server-sent events, one
``data: {chunk}`` per word of the reply (``choices[0].delta``), tool-call arguments in two pieces, a last
chunk with ``usage`` when ``stream_options.include_usage`` asks for it, then ``data: [DONE]``.  A reply
``{"content": ..., "stall_after": n}`` sends n chunks and then falls silent for ``timeout_sleep_s``, like
a server that hangs mid-reply.
Every request is logged (with the tools, response_format, seed, temperature and stream flag it sent) so
tests can see the retries.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("429", "500", "timeout", "malformed", "400_response_format", "404_model")


class ChatCompletionsServer:
    """Start with ``with ChatCompletionsServer([...]) as server: server.base_url``."""

    def __init__(self, behaviours: list[str | dict[str, Any]], timeout_sleep_s: float = 3.0,
                 models: list[str] | None = None, api_key: str | None = None,
                 context_tokens: int | None = None, first_token_delay_s: float = 0.0,
                 chunk_delay_s: float = 0.0) -> None:
        """``models``: what GET /models lists (None: the route is absent, 404); ``api_key``: when given,
        a request with another bearer key is refused with 401; ``context_tokens``: the context length GET
        /props states, as llama.cpp's server does (None: no /props route); ``first_token_delay_s`` and
        ``chunk_delay_s``: how slowly a streamed reply comes (reading the prompt, then each chunk)."""
        self.first_token_delay_s = first_token_delay_s
        self.chunk_delay_s = chunk_delay_s
        self.models = models
        self.context_tokens = context_tokens
        self.api_key = api_key
        self.behaviours = deque(behaviours)
        self.timeout_sleep_s = timeout_sleep_s
        self.request_log: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ChatCompletionsServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next_behaviour(self, request: dict[str, Any]) -> str | dict[str, Any]:
        with self._lock:
            behaviour = self.behaviours.popleft() if self.behaviours else "500"
            self.request_log.append({"time": time.time(), "behaviour": behaviour if behaviour in FAULTS else "reply",
                                     "model": request.get("model"), "messages": request.get("messages", []),
                                     "tools": [tool["function"]["name"] for tool in request.get("tools", [])],
                                     "response_format": request.get("response_format"),
                                     "seed": request.get("seed"), "temperature": request.get("temperature"),
                                     "stream": bool(request.get("stream")),
                                     "max_tokens": request.get("max_tokens", request.get("max_completion_tokens"))})
            return behaviour

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _key_refused(self) -> bool:
                if server.api_key is None or self.headers.get("Authorization") == f"Bearer {server.api_key}":
                    return False
                self._send(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})
                return True

            def do_GET(self) -> None:
                if self._key_refused():
                    return
                if self.path.rstrip("/") == "/props" and server.context_tokens is not None:
                    self._send(200, {"default_generation_settings": {"n_ctx": server.context_tokens}})
                    return
                if self.path.rstrip("/") != "/v1/models" or server.models is None:
                    self._send(404, {"error": {"message": "not found"}})
                    return
                self._send(200, {"object": "list", "data": [{"id": name, "object": "model"} for name in server.models]})

            def do_POST(self) -> None:
                if self._key_refused():
                    return
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                behaviour = server._next_behaviour(body)
                if behaviour == "429":
                    self._send(429, {"error": {"message": "rate limited", "type": "rate_limit"}})
                elif behaviour == "500":
                    self._send(500, {"error": {"message": "internal error", "type": "server_error"}})
                elif behaviour == "timeout":
                    time.sleep(server.timeout_sleep_s)
                    self._send(500, {"error": {"message": "too late"}})
                elif behaviour == "400_response_format":
                    self._send(400, {"error": {"message": "response_format is not supported", "type": "invalid_request_error"}})
                elif behaviour == "404_model":
                    self._send(404, {"error": {"message": f"model {body.get('model')!r} not found", "type": "not_found"}})
                elif behaviour == "malformed" and body.get("stream"):
                    self._send_events([b'{"id": "x", "choices": [ this is not json'])
                elif behaviour == "malformed":
                    self._send_raw(200, b'{"id": "x", "choices": [ this is not json')
                elif body.get("stream"):
                    self._stream(body, behaviour)
                else:
                    self._send(200, _completion(body.get("model", "test"), behaviour))

            def _stream(self, body: dict[str, Any], reply: str | dict[str, Any]) -> None:
                chunks = _chunks(body.get("model", "test"), reply)
                stall_after = reply.get("stall_after") if isinstance(reply, dict) else None
                if (body.get("stream_options") or {}).get("include_usage"):
                    chunks.append({**chunks[0], "choices": [], "usage": _usage(reply)})
                events = [json.dumps(chunk).encode() for chunk in chunks]
                self._send_events(events if stall_after is None else events[:stall_after], stall=stall_after is not None)

            def _send_events(self, events: list[bytes], stall: bool = False) -> None:
                """Each event as ``data: ...`` after its delay, then ``[DONE]``, or silence when ``stall``."""
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    time.sleep(server.first_token_delay_s)
                    for event in events:
                        self.wfile.write(b"data: " + event + b"\n\n")
                        self.wfile.flush()
                        time.sleep(server.chunk_delay_s)
                    if stall:
                        time.sleep(server.timeout_sleep_s)
                        return
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                self._send_raw(status, json.dumps(payload).encode())

            def _send_raw(self, status: int, data: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        return Handler


def _text(reply: str | dict[str, Any]) -> str:
    return reply if isinstance(reply, str) else reply.get("content", "")


def _tool_calls(reply: str | dict[str, Any]) -> list[dict[str, Any]]:
    calls = reply.get("tool_calls", []) if isinstance(reply, dict) else []
    return [{"id": f"call_{i}", "type": "function", "function": {"name": call["name"], "arguments": json.dumps(call["args"])}}
            for i, call in enumerate(calls)]


def _usage(reply: str | dict[str, Any]) -> dict[str, int]:
    words = len(_text(reply).split())
    return {"prompt_tokens": 11, "completion_tokens": words + 1, "total_tokens": 12 + words}


def _completion(model: str, reply: str | dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": _text(reply)}
    if _tool_calls(reply):
        message["tool_calls"] = _tool_calls(reply)
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if "tool_calls" in message else "stop"}],
        "usage": _usage(reply),
    }


def _chunks(model: str, reply: str | dict[str, Any]) -> list[dict[str, Any]]:
    """The streamed form of ``reply``: its words one delta each, each tool call's arguments in two pieces
    (clients must join them), and a last delta with the finish reason."""
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    deltas += [{"content": word} for word in re.findall(r"\s*\S+|\s+$", _text(reply))]
    for index, call in enumerate(_tool_calls(reply)):
        arguments = call["function"]["arguments"]
        half = len(arguments) // 2
        deltas.append({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                       "function": {"name": call["function"]["name"], "arguments": arguments[:half]}}]})
        deltas.append({"tool_calls": [{"index": index, "function": {"arguments": arguments[half:]}}]})
    finish = "tool_calls" if _tool_calls(reply) else "stop"
    return [{"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish if last else None}]}
            for last, delta in ((i == len(deltas) - 1, delta) for i, delta in enumerate(deltas))]
