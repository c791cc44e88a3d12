# Creator Relay: one image for every service of compose.yaml (relay migrate, serve, worker,
# sandbox). Multi-stage: the build stage installs the locked dependencies and the code into a
# virtual environment; the runtime stage is a slim Python with that environment, the source
# tree (the migrations are read from it) and a non-root user. The dependencies are exactly
# requirements/image.lock (versions and hashes; `make lock` refreshes it): neither the embedded
# PostgreSQL (compose names a server) nor anything only the tests use.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
WORKDIR /srv
# Dependencies first (a layer that survives source edits), then the code.
COPY requirements/image.lock ./requirements/
RUN pip install --no-deps --require-hashes -r requirements/image.lock
COPY pyproject.toml README.md ./
COPY alembic.ini ./
COPY migrations ./migrations
COPY app ./app
COPY sync ./sync
COPY sandbox ./sandbox
# Editable: app.db.migrate finds alembic.ini and migrations/ next to the code in /srv.
RUN pip install --no-deps -e .

FROM python:3.11-slim AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    RELAY_DATA_DIR=/var/lib/relay \
    RELAY_LOG_JSON=true
RUN groupadd --system --gid 10001 relay \
    && useradd --system --uid 10001 --gid relay --home-dir /var/lib/relay --create-home relay
COPY --from=build /opt/venv /opt/venv
COPY --from=build /srv /srv
WORKDIR /srv
USER relay:relay
EXPOSE 8000 8700 9100 9101
CMD ["relay", "serve"]
