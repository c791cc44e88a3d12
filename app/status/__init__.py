"""The status page (GET /status): its HTML and SVG, and what it shows of an organization,
cached per process. Its SQL: app/store/status.py, app/store/status_sessions.py."""
