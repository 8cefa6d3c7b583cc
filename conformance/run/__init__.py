"""A conformance run's logic, free of pytest: what was asked of it (`settings`), the
session that plans the cases, grades each one as it ends and writes the reports
(`session`), and how a case's ending reads as a status and a sentence per row
(`judging`). What the runner tells it are plain values (`events`). The pytest plugin
(`elicit_conformance.plugin`) only translates its hooks into calls on the session, so
everything here is tested in-process.

May import: the vocabulary, `connection`, `harness`, `reporting`; never pytest, the
plugin or the cases.
"""
