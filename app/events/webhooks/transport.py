"""The dispatcher's HTTP client: every connection goes to a checked address.

``PublicAddressBackend`` is the network backend of the client's connection pool: it resolves
the host itself, refuses the connection when any answer is not a public address (unless
RELAY_WEBHOOK_ALLOW_PRIVATE_ADDRESSES), and connects to the very addresses it checked, so a
DNS answer that changes between a check and the connection (rebinding) cannot send a
delivery elsewhere. TLS still verifies the certificate for the URL's host (httpcore passes
it as the server name), and the Host header is the URL's. No redirect is followed and
nothing is read from the environment (no proxy, no netrc): every connection the client
makes passes through this backend. ``post`` reads at most a bounded answer.
"""

from __future__ import annotations

import asyncio
import socket
import typing

import httpcore
import httpx

from app.events.webhooks.addresses import addresses_of, refusal
from app.settings import Settings

Resolver = typing.Callable[..., typing.Awaitable[list]]


class RefusedAddress(httpcore.ConnectError):
    """The host resolves to an address deliveries may not go to."""


class DNSError(httpcore.ConnectError):
    """The host does not resolve."""


class OversizedAnswer(Exception):
    """The receiver's answer is longer than RELAY_WEBHOOK_MAX_ANSWER_BYTES; ``status`` is its
    status code."""

    def __init__(self, status: int, limit: int) -> None:
        super().__init__(f"HTTP {status} with an answer longer than {limit} bytes "
                         "(RELAY_WEBHOOK_MAX_ANSWER_BYTES): not read further")
        self.status = status


class PublicAddressBackend(httpcore.AsyncNetworkBackend):
    """Connections to the addresses a host resolves to, each checked (see the module).
    ``getaddrinfo``: the resolver (the event loop's; tests give their own answers)."""

    def __init__(self, allow_private: bool, getaddrinfo: Resolver | None = None) -> None:
        self.allow_private = allow_private
        self._getaddrinfo = getaddrinfo
        self._connect = httpcore.AnyIOBackend()

    async def connect_tcp(
        self, host: str, port: int, timeout: float | None = None,
        local_address: str | None = None, socket_options: typing.Iterable | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        try:
            async with asyncio.timeout_at(deadline):
                infos = await (self._getaddrinfo or loop.getaddrinfo)(host, port, type=socket.SOCK_STREAM)
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"resolving {host} took longer than {timeout} s") from None
        except OSError as exc:
            raise DNSError(f"{host} does not resolve: {exc}") from None
        addresses = addresses_of(infos)
        if not self.allow_private:
            for address in addresses:
                if (reason := refusal(address, host)) is not None:
                    raise RefusedAddress(reason)
        failure: Exception = DNSError(f"{host} resolves to no address")
        for address in addresses:  # each in turn, within the one connect timeout
            left = None if deadline is None else max(deadline - loop.time(), 0.0)
            try:
                return await self._connect.connect_tcp(str(address), port, left, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        raise failure

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: typing.Iterable | None = None) -> httpcore.AsyncNetworkStream:
        raise RefusedAddress("webhooks are delivered over TCP only")

    async def sleep(self, seconds: float) -> None:
        await self._connect.sleep(seconds)


class _Body(httpx.AsyncByteStream):
    """An httpcore response body as httpx reads it."""

    def __init__(self, stream: typing.AsyncIterable[bytes]) -> None:
        self._stream = stream

    async def __aiter__(self) -> typing.AsyncIterator[bytes]:
        async for chunk in self._stream:
            yield chunk

    async def aclose(self) -> None:
        close = getattr(self._stream, "aclose", None)
        if close is not None:
            await close()


class CheckedTransport(httpx.AsyncBaseTransport):
    """An httpcore connection pool on ``PublicAddressBackend``. Errors are httpcore's own
    (``ConnectError``, ``ReadTimeout``, ...): the dispatcher records any error by name."""

    def __init__(self, backend: PublicAddressBackend, connections: int) -> None:
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=False),
            max_connections=connections, max_keepalive_connections=connections, keepalive_expiry=5.0,
            network_backend=backend,
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        answer = await self._pool.handle_async_request(httpcore.Request(
            method=request.method,
            url=httpcore.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path),
            headers=request.headers.raw, content=request.stream, extensions=request.extensions,
        ))
        body = answer.stream
        assert isinstance(body, typing.AsyncIterable)  # the async pool's bodies are read asynchronously
        return httpx.Response(status_code=answer.status, headers=answer.headers,
                              stream=_Body(body), extensions=answer.extensions)

    async def aclose(self) -> None:
        await self._pool.aclose()


def webhook_client(settings: Settings) -> httpx.AsyncClient:
    """The dispatcher's client: ``webhook_connect_timeout`` to resolve and connect, at most
    ``webhook_timeout`` per read (the dispatcher bounds each whole attempt by it too), one
    connection per endpoint delivered to at once."""
    backend = PublicAddressBackend(settings.webhook_allow_private_addresses)
    return httpx.AsyncClient(
        transport=CheckedTransport(backend, settings.webhook_concurrency),
        timeout=httpx.Timeout(settings.webhook_timeout, connect=settings.webhook_connect_timeout),
        follow_redirects=False,
        trust_env=False,
    )


async def post(client: httpx.AsyncClient, url: httpx.URL, body: bytes, headers: dict[str, str], limit: int) -> int:
    """POST ``body`` and read the answer's body up to ``limit`` bytes (then the connection is
    closed, not reused); its status code, or ``OversizedAnswer`` past ``limit``."""
    async with client.stream("POST", url, content=body, headers=headers) as response:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise OversizedAnswer(response.status_code, limit)
        read = 0
        async for chunk in response.aiter_raw():
            read += len(chunk)
            if read > limit:
                raise OversizedAnswer(response.status_code, limit)
        return response.status_code
