"""One cheap request before a run: is the model's endpoint there, does it take the key, does it serve the model?

Without it a missing key, a refused endpoint or a rejected key surfaced after 30-50 s of retries as
"status model_unavailable" with no cause.  The check is ``GET <base>/models`` (free on every
OpenAI-compatible server we know; a server without the route is given the benefit of the doubt), and
every failure is one sentence a person can act on.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from physvec.agents.providers import ProviderSettings

DEFAULT_BASE_URL = "https://api.openai.com/v1"
PREFLIGHT_TIMEOUT_S = 10.0


class ProviderUnreachable(RuntimeError):
    """The model cannot be asked: the message says why and what to do."""


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    api_key: str | None

    @property
    def headers(self) -> dict[str, str]:
        """What every request sends: the key, or a placeholder local servers accept."""
        return {"Authorization": f"Bearer {self.api_key or 'not-needed'}"}

    @property
    def local(self) -> bool:
        return self.base_url != DEFAULT_BASE_URL


def endpoint_of(settings: ProviderSettings) -> Endpoint:
    """Where ``openai:`` specs go: --base-url, else OPENAI_BASE_URL, else OpenAI itself."""
    base_url = (settings.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    return Endpoint(base_url, os.environ.get("OPENAI_API_KEY") or None)


def preflight(spec: str, settings: ProviderSettings) -> str | None:
    """Check an ``openai:<name>`` spec's endpoint, key and model; return a one-line description of the
    endpoint, None for specs that ask no server.  Raises ProviderUnreachable with the cause."""
    provider, _, name = spec.partition(":")
    if provider != "openai":
        return None
    import httpx

    endpoint = endpoint_of(settings)
    if endpoint.api_key is None and not endpoint.local:
        raise ProviderUnreachable("no API key: set OPENAI_API_KEY, or pass --base-url for a local server")
    headers = endpoint.headers
    url = f"{endpoint.base_url}/models"
    timeout = PREFLIGHT_TIMEOUT_S if settings.timeout_s is None else min(settings.timeout_s, PREFLIGHT_TIMEOUT_S)
    try:
        response = httpx.get(url, headers=headers, timeout=timeout)
    except httpx.TimeoutException:
        raise ProviderUnreachable(f"the endpoint {endpoint.base_url} did not answer within {timeout:g} s") from None
    except httpx.HTTPError as error:
        raise ProviderUnreachable(f"endpoint refused at {endpoint.base_url} ({type(error).__name__}: {error})") \
            from None
    if response.status_code in (401, 403):
        raise ProviderUnreachable(f"{response.status_code}: the key was rejected by {endpoint.base_url} "
                                  f"({_server_message(response)})")
    if response.status_code == 404:
        return f"{endpoint.base_url} (it lists no models; {name} not checked)"
    if response.status_code >= 400:
        raise ProviderUnreachable(f"{response.status_code} from {url}: {_server_message(response)}")
    served = _served_models(response)
    if served is not None and name not in served:
        listed = ", ".join(sorted(served)[:8]) or "none"
        raise ProviderUnreachable(f"model {name} not served at {endpoint.base_url} (it serves: {listed})")
    return f"{endpoint.base_url} serves {name}"


def _server_message(response: object) -> str:
    try:
        payload = response.json()  # type: ignore[attr-defined]
        error = payload.get("error", payload) if isinstance(payload, dict) else payload
        message = error.get("message") if isinstance(error, dict) else error
        return str(message)[:200]
    except ValueError:
        return response.text[:200]  # type: ignore[attr-defined]


def _served_models(response: object) -> set[str] | None:
    """The model ids a /models answer lists; None when it lists none in the OpenAI shape."""
    try:
        payload = response.json()  # type: ignore[attr-defined]
    except ValueError:
        return None
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list):
        return None
    return {item["id"] for item in data if isinstance(item, dict) and isinstance(item.get("id"), str)}


CONTEXT_KEYS = ("max_model_len", "context_length", "context_window", "n_ctx")
"""where servers state a model's context length: vLLM's /models, OpenRouter and others' metadata, llama.cpp"""


def served_context_tokens(spec: str, settings: ProviderSettings) -> int | None:
    """The context length the endpoint serves ``openai:<name>`` with, read from its model list or, for
    llama.cpp, from ``/props``; None when the server does not say (the prompt is then not checked)."""
    import httpx

    provider, _, name = spec.partition(":")
    if provider != "openai":
        return None
    endpoint = endpoint_of(settings)
    headers = endpoint.headers
    root = endpoint.base_url.removesuffix("/v1")
    for url, pick in ((f"{endpoint.base_url}/models", lambda payload: _listed_context(payload, name)),
                      (f"{root}/props", lambda payload: _context_in(payload.get("default_generation_settings", {})))):
        try:
            response = httpx.get(url, headers=headers, timeout=PREFLIGHT_TIMEOUT_S)
            found = pick(response.json()) if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError, AttributeError):
            found = None
        if found:
            return found
    return None


def _listed_context(payload: object, name: str) -> int | None:
    data = payload.get("data") if isinstance(payload, dict) else None
    entries = [item for item in data or [] if isinstance(item, dict) and item.get("id") == name]
    return _context_in(entries[0]) if entries else None


def _context_in(entry: object) -> int | None:
    if not isinstance(entry, dict):
        return None
    values = [entry.get(key) for key in CONTEXT_KEYS]
    return next((value for value in values  # JSON true is an int to Python, never a context length
                 if isinstance(value, int) and not isinstance(value, bool) and value > 0), None)
