"""The repository's own tools, never in the wheel: they read and write the checkout
(`fixtures/`, `reference/space.py`, `docs/`) and only work there. The mutation
command (`mutate`, which also serves a mutated reference as a `--server` target),
the declaration space and its spellings (`space`, `spelling`), what a behaviour
change makes stale regenerated (`regenerate`), and uvicorn on 127.0.0.1 for the
tests and the benchmark (`local_server`).

May import anything.
"""
