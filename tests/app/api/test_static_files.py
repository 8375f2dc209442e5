"""The client's static files: text gzipped once for a browser that takes gzip, with its own tag."""

from __future__ import annotations

import gzip
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.api.routes import pages
from app.main import create_app

STYLE = "/static/css/style.css"


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app()) as client:
        yield client


def fetch(client: TestClient, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """The status, headers and body as sent (httpx would undo the gzip on reading)."""
    with client.stream("GET", path, headers=headers) as response:
        return response.status_code, dict(response.headers), b"".join(response.iter_raw())


def test_a_text_file_comes_gzipped_to_a_browser_that_takes_gzip(client: TestClient) -> None:
    text = (pages.STATIC_DIR / "css/style.css").read_bytes()
    status, headers, body = fetch(client, STYLE, **{"Accept-Encoding": "br, gzip, deflate"})
    assert status == 200
    assert headers["content-encoding"] == "gzip"
    assert headers["vary"] == "Accept-Encoding"
    assert headers["content-type"].startswith("text/css")
    assert int(headers["content-length"]) == len(body) < len(text) / 3
    assert gzip.decompress(body) == text
    assert "content-security-policy" in headers  # the security headers, as on every answer

    status, plain, body = fetch(client, STYLE, **{"Accept-Encoding": "identity"})
    assert status == 200 and body == text
    assert "content-encoding" not in plain and plain["vary"] == "Accept-Encoding"
    assert plain["etag"] != headers["etag"]


@pytest.mark.parametrize("refused", ["gzip;q=0", "br", "", "gzip;q=nonsense"])
def test_gzip_refused_or_not_named_gets_the_plain_file(client: TestClient, refused: str) -> None:
    status, headers, body = fetch(client, STYLE, **{"Accept-Encoding": refused})
    assert status == 200
    assert "content-encoding" not in headers
    assert body == (pages.STATIC_DIR / "css/style.css").read_bytes()


def test_each_representation_is_revalidated_by_its_own_tag(client: TestClient) -> None:
    takes = {"Accept-Encoding": "gzip"}
    _, gzipped, _ = fetch(client, STYLE, **takes)
    _, plain, _ = fetch(client, STYLE, **{"Accept-Encoding": "identity"})
    assert fetch(client, STYLE, **takes, **{"If-None-Match": gzipped["etag"]})[0] == 304
    status, headers, body = fetch(client, STYLE, **takes, **{"If-None-Match": plain["etag"]})
    assert status == 200 and headers["content-encoding"] == "gzip" and body
    plain_again = {"Accept-Encoding": "identity", "If-None-Match": plain["etag"]}
    assert fetch(client, STYLE, **plain_again)[0] == 304


def test_a_file_is_compressed_once_however_often_it_is_asked_for(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    compress = gzip.compress

    def counted(data: bytes, *args: object, **kwargs: object) -> bytes:
        calls.append(len(data))
        return compress(data, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gzip, "compress", counted)
    bodies = {
        fetch(client, "/static/js/duel.js", **{"Accept-Encoding": "gzip"})[2] for _ in range(5)
    }
    assert len(bodies) == 1
    assert len(calls) == 1


def test_an_image_is_sent_as_it_is(client: TestClient) -> None:
    image = next(pages.STATIC_DIR.rglob("*.webp"))
    path = "/static/" + image.relative_to(pages.STATIC_DIR).as_posix()
    status, headers, body = fetch(client, path, **{"Accept-Encoding": "gzip"})
    assert status == 200
    assert "content-encoding" not in headers
    assert body == image.read_bytes()
