"""The self-describing API: the OpenAPI document (document.py) and the offline /docs page
(docs_page.py, its assets in docs_assets/)."""
