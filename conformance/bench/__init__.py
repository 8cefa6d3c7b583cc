"""Benchmarks, printed as one Markdown table: `python -m elicit_conformance.bench`.

A repository-only package (never in the wheel): `measures` takes each measurement,
`table` prints them against their goals. May import anything; nothing imports it.

1. Rounds per modern scenario against the floor (the depth of the question
   dependency graph): the reference, the MCP SDK peer, and a hand-written guard
   asking one question per round (`fixtures/peers/hand_guard.py`).
2. Server time per leg (median over many legs, measured by a server middleware
   inside the request-state seal, so transport and sealing are left out): the
   reference and the SDK peer against a hand-written guard asking the same
   questions in the same rounds, as a ratio.
3. `request_state` bytes a client carries after k answered questions.
4. What an unrelated project pays for the installed plugin: a 3-test run with
   it and with `-p no:elicit_conformance`.
5. Wall time of the whole suite, both revisions, against the reference:
   in-process, over HTTP (uvicorn on 127.0.0.1), over stdio, and over HTTP
   with pytest-xdist `-n 2`, each as a ratio to in-process, and whether every
   transport gave the same verdicts; with `--ci-run`, the wall and CPU time of
   `.ci/run` on a fresh clone, its CPU in suite units (over the CPU of one
   in-process `pytest conformance/cases` against the reference, measured in the
   same bench run), and each test file's cost in suite units (`costs`).
6. With `--deployment` (alone): the reference deployment through faults, full size
   (`elicit_conformance.dev.deployment`): 200 modern calls while a process is
   killed and restarted, 50 tasked calls while a worker is killed and restarted,
   50 while Redis restarts with persistence and 50 without: calls completed at
   once and after one retry, with another's answers, body runs per call, HTTP 5xx
   seen, tasks made and lost.
6. A tasked two-round call (ORD-1, the tasks extension) against the same call
   in the foreground, in-process: wall time, and how much of it the client
   spends waiting between `tasks/get` polls (the server's `pollIntervalMs`).

Timings are measured here and only here, never asserted in tests.
"""
