# Cash Stash server image: slim Python, unprivileged user, health-checked.

# The engine compiled to C (engine/compiled.py) in a stage of its own, which has the compiler
# and mypy (the dev lock's, checked against its hashes); the image takes only what it built.
FROM python:3.11 AS engine
WORKDIR /build
COPY requirements-dev.txt ./
RUN pip install --no-cache-dir --require-hashes -r requirements-dev.txt
COPY pyproject.toml README.md ./
COPY engine ./engine
RUN python -c "from engine.compiled import build; build()"

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/cash-stash
# The locked versions first, each checked against its hash (a layer kept while only the code
# changes); then the project itself, which adds no dependency of its own.
COPY requirements.txt ./
RUN pip install --require-hashes -r requirements.txt
COPY pyproject.toml README.md alembic.ini ./
COPY engine ./engine
COPY --from=engine /build/engine/ ./engine/
COPY app ./app
COPY migrations ./migrations
COPY static ./static
# Installed in place: migrations and static files are found beside the code.
RUN pip install --no-deps -e . \
    && useradd --system --uid 10001 --home-dir /srv/cash-stash cashstash \
    && chown -R cashstash /srv/cash-stash

USER cashstash
ENV CASH_STASH_HOST=0.0.0.0 \
    CASH_STASH_PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2)"
# SIGTERM lets the server finish in-flight actions and close sockets with 1012 (service restart).
STOPSIGNAL SIGTERM
CMD ["cash-stash", "serve"]
