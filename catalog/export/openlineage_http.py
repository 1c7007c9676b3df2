"""Send OpenLineage events to an HTTP endpoint through the official client's HTTP transport.

``openlineage-python`` is the optional extra ``openlineage``; it is imported only here.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any
from urllib.parse import urljoin

from catalog.errors import CatalogError

DEFAULT_ENDPOINT = "api/v1/lineage"
# the client's retries (POST, on 5xx and connection errors), twice instead of five times (about
# a second in all), and the last answer kept so that its status can be reported
RETRY_CHANGES = {"total": 2, "read": 2, "connect": 2, "raise_on_status": False}


class SendError(CatalogError):
    """An OpenLineage endpoint could not be reached or refused an event."""


def send_events(
    events: Sequence[dict[str, Any]],
    url: str,
    endpoint: str = DEFAULT_ENDPOINT,
    api_key: str | None = None,
    timeout: float = 10.0,
) -> int:
    """POST every event to ``url`` + ``endpoint`` (Marquez's ``api/v1/lineage`` by default); the count sent."""
    try:
        import requests
        from openlineage.client.transport.http import ApiKeyTokenProvider, HttpConfig, HttpTransport, TokenProvider
        from openlineage.client.transport.http_common import DEFAULT_RETRY_CONFIG
    except ImportError:
        raise SendError(
            "--url needs the OpenLineage client: pip install 'dbt-column-catalog[openlineage]'"
        ) from None

    auth = ApiKeyTokenProvider({"api_key": api_key}) if api_key else TokenProvider({})
    try:
        transport = HttpTransport(HttpConfig(url=url, endpoint=endpoint, timeout=timeout, auth=auth, retry={**DEFAULT_RETRY_CONFIG, **RETRY_CHANGES}))
    except ValueError:
        raise SendError(f"{url}: not an http(s) URL") from None
    target = urljoin(url, endpoint)  # as the transport joins them
    sent = 0
    logging.getLogger("openlineage").setLevel(logging.CRITICAL)  # failures are reported once, below
    try:
        for event in events:
            transport.emit(event)  # type: ignore[arg-type]  # the transport serializes plain dicts as they are
            sent += 1
    except requests.HTTPError as e:
        status = e.response.status_code if e.response is not None else "?"
        raise SendError(f"{target} answered HTTP {status} {_after(sent, events)}") from None
    except requests.Timeout:
        raise SendError(f"{target} did not answer within {timeout:g}s {_after(sent, events)}") from None
    except requests.ConnectionError as e:
        why = "connection refused" if "refused" in str(e).lower() else "cannot connect"
        raise SendError(f"cannot send OpenLineage events to {target}: {why} {_after(sent, events)}") from None
    except requests.RequestException as e:
        raise SendError(f"cannot send OpenLineage events to {target}: {type(e).__name__} {_after(sent, events)}") from None
    finally:
        transport.close()
    return sent


def _after(sent: int, events: Sequence[Any]) -> str:
    return f"({sent} of {len(events)} events sent)"
