"""The ``data`` of every ``/v1/`` answer, as msgspec Structs (the shapes of the spec,
../shared/spec/api.md, "Resources and their fields").

A route names its type in its return annotation, ``-> Envelope[ChatsPage]``; the gate
declares ``Answer[ChatsPage]`` as the route's 200 in the served OpenAPI document. The
handlers pass the upstream's (or the store's) JSON through unchanged -- members these
types do not name included, so the document allows further members -- and
``tests/openapi/test_answers.py`` decodes real answers of every route with these very
types, so the document cannot drift from what is sent.

- ``shared``: pieces several answers embed (user summary, ``{date, count}`` points);
- ``feeds``: the paged lists (chats, posts, earnings, payouts, notifications, ...);
- ``media``: the vault's lists and trending GIFs;
- ``charts``: overviews, charts, stats and the mark-read result.
"""
