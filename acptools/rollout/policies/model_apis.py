"""Model APIs as policies, through the official SDKs (optional extras): `openai:MODEL` speaks the
chat-completions format to OpenAI or any compatible server (vLLM, Ollama, llama.cpp, ...) at
--base-url; `anthropic:MODEL` speaks the Messages API. Keys come from OPENAI_API_KEY and
ANTHROPIC_API_KEY; a local server at --base-url may need none.

Each step is one request: the system prompt and the observation (which carries the history), so
every step of every episode is independent and episodes can run side by side (--jobs).
Errors that no retry can fix (a rejected key, an unknown model or endpoint) stop the run; the
others (after the SDK's own retries) end the episode as 'policy-error'. Before a run, `probe` sends
one tiny request without retries, so a server that is down or a wrong key is named within seconds;
during a run, `max_errors` requests in a row that cannot reach the API stop it (EndpointDown).
"""

from __future__ import annotations

import importlib
import os

from ...errors import AcpError
from ..defaults import MAX_ERRORS, TIMEOUT
from .interface import EndpointDown, FatalPolicyError, Policy, PolicyError, Reply

NO_KEY = "no-key"  # what a local server that checks no key is sent (the SDKs insist on one)
PROBE_PROMPT = "Reply with the word OK."  # the probe's one message (answered in one token)


def _sdk(name: str):
    try:
        return importlib.import_module(name)
    except ImportError:
        raise AcpError(
            f"the {name}:MODEL policy needs the '{name}' package, which is not installed",
            "--policy",
            f"pip install 'acptools[{name}]'",
        ) from None


def _key(variable: str, base_url: str | None, spec: str) -> str:
    key = os.environ.get(variable)
    if key:
        return key
    if base_url:
        return NO_KEY
    raise AcpError(
        f"no API key: {variable} is not set",
        f"--policy {spec}",
        f"export {variable}=..., or pass --base-url for a local server that needs no key",
    )


class _ApiPolicy(Policy):
    sdk = ""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        timeout: float = TIMEOUT,
        max_errors: int = MAX_ERRORS,
    ):
        self.module = _sdk(self.sdk)
        self.model, self.base_url, self.name = model, base_url, f"{self.sdk}:{model}"
        self.options = {k: v for k, v in (("max_tokens", max_tokens), ("temperature", temperature)) if v is not None}
        self.timeout = timeout
        self.max_errors, self.errors_in_a_row = max_errors, 0

    def probe(self) -> None:
        """One request of one token, no retries: a server that refuses the connection, a rejected key
        or an unknown model is a FatalPolicyError now, not a run of failed questions. A probe that
        times out or is refused for another reason (a rate limit, an option the model does not take)
        reached the API: the run's own requests go on."""
        m = self.module
        try:
            self.probe_request()
        except m.APITimeoutError:
            return
        except m.APIConnectionError as e:
            raise FatalPolicyError(
                f"cannot reach the model API at {self.endpoint}: {_cause(e)}",
                f"--policy {self.name}",
                "check --base-url and that the server is running",
            ) from None
        except (m.AuthenticationError, m.PermissionDeniedError, m.NotFoundError) as e:
            raise _fatal(e, self.name) from None
        except m.APIError:
            return

    @property
    def endpoint(self) -> str:
        """The API's URL (--base-url, or the SDK's default)."""
        return str(self.client.base_url)

    async def act(self, obs) -> Reply:
        m = self.module
        try:
            reply = await self.request(obs)
        except (m.AuthenticationError, m.PermissionDeniedError, m.NotFoundError) as e:
            raise _fatal(e, self.name) from None
        except m.APIConnectionError as e:  # timeouts included
            raise self._unreachable(e) from None
        except m.APIError as e:
            self.errors_in_a_row = 0
            raise PolicyError(_message(e)) from None
        self.errors_in_a_row = 0
        return reply

    def _unreachable(self, e) -> PolicyError:
        """A request that did not reach the API: this item's error, or the run's end after max_errors in a row."""
        self.errors_in_a_row += 1
        why = _message(e) if isinstance(e, self.module.APITimeoutError) else f"{_message(e)} ({_cause(e)})"
        if self.max_errors and self.errors_in_a_row >= self.max_errors:
            return EndpointDown(
                f"{self.errors_in_a_row} requests in a row did not reach the model API at "
                f"{self.endpoint}; the last: {why}",
                f"--policy {self.name}",
            )
        return PolicyError(why)

    def probe_request(self) -> None:
        raise NotImplementedError

    async def request(self, obs) -> Reply:
        raise NotImplementedError

    async def aclose(self) -> None:
        await self.client.close()


def _fatal(e, name: str) -> FatalPolicyError:
    return FatalPolicyError(_message(e), f"--policy {name}", "check the API key, the model name and --base-url")


def _cause(e: BaseException) -> str:
    """The innermost reason a request did not get through ('[Errno 111] Connection refused')."""
    while (e.__cause__ or e.__context__) is not None:
        e = e.__cause__ or e.__context__
    return " ".join(str(e).split())[:200] or type(e).__name__


def _message(e) -> str:
    """'BadRequestError (HTTP 400): <the API's own message>'."""
    text, body = str(getattr(e, "message", e)), getattr(e, "body", None)
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        text = inner.get("message") if isinstance(inner.get("message"), str) else text
    status = getattr(e, "status_code", None)
    return f"{type(e).__name__}{f' (HTTP {status})' if status else ''}: {' '.join(text.split())[:300]}"


class OpenAIPolicy(_ApiPolicy):
    """A model behind the OpenAI chat completions API (or a compatible endpoint at `base_url`)."""

    sdk = "openai"

    def __init__(self, model: str, base_url: str | None = None, **options):
        super().__init__(model, base_url, **options)
        self.client = self.module.AsyncOpenAI(
            api_key=_key("OPENAI_API_KEY", base_url, self.name), base_url=base_url, timeout=self.timeout
        )

    def probe_request(self) -> None:
        """One chat completion of one token, without retries."""
        with self.module.OpenAI(
            api_key=self.client.api_key, base_url=self.client.base_url, timeout=self.timeout, max_retries=0
        ) as client:
            client.chat.completions.create(
                model=self.model, max_tokens=1, messages=[{"role": "user", "content": PROBE_PROMPT}]
            )

    async def request(self, obs) -> Reply:
        """One chat completion: the reply text with token counts and cost when reported."""
        r = await self.client.chat.completions.create(
            model=self.model,
            messages=[{"role": "system", "content": obs.system}] * bool(obs.system) + _turns(obs),
            **self.options,
        )
        if not r.choices:
            raise PolicyError("the response has no choices")
        usage = r.usage
        return Reply(
            r.choices[0].message.content or "",
            usage.prompt_tokens if usage else None,
            usage.completion_tokens if usage else None,
            _cost(usage),
        )


class AnthropicPolicy(_ApiPolicy):
    """A model behind the Anthropic Messages API."""

    sdk = "anthropic"
    DEFAULT_MAX_TOKENS = 2048  # the Messages API requires a limit

    def __init__(self, model: str, base_url: str | None = None, **options):
        super().__init__(model, base_url, **options)
        self.options.setdefault("max_tokens", self.DEFAULT_MAX_TOKENS)
        if "temperature" in self.options:  # recent SDKs no longer take it as an argument; the API still does
            self.options["extra_body"] = {"temperature": self.options.pop("temperature")}
        self.client = self.module.AsyncAnthropic(
            api_key=_key("ANTHROPIC_API_KEY", base_url, self.name), base_url=base_url, timeout=self.timeout
        )

    def probe_request(self) -> None:
        """One Messages call of one token, without retries."""
        with self.module.Anthropic(
            api_key=self.client.api_key, base_url=self.client.base_url, timeout=self.timeout, max_retries=0
        ) as client:
            client.messages.create(model=self.model, max_tokens=1, messages=[{"role": "user", "content": PROBE_PROMPT}])

    async def request(self, obs) -> Reply:
        """One Messages call: the reply's text blocks with token counts and cost when reported."""
        system = {"system": obs.system} if obs.system else {}
        r = await self.client.messages.create(model=self.model, messages=_turns(obs), **system, **self.options)
        text = "".join(block.text for block in r.content if block.type == "text")
        return Reply(text, r.usage.input_tokens, r.usage.output_tokens, _cost(r.usage))


def _turns(obs) -> list[dict]:
    """The chat turns after the system message: an observation's own (an eval question's few-shot
    turns), else its prompt as one user message."""
    return list(getattr(obs, "messages", None) or [{"role": "user", "content": obs.prompt}])


def _cost(usage) -> float | None:
    """The request's cost, when the API reports one in its usage (e.g. OpenRouter's `usage.cost`)."""
    cost = getattr(usage, "cost", None) if usage is not None else None
    return float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None
