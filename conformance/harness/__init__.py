"""What a case is made of: the `Case` a test receives (its target, its transcript, the
connections it opens, its event loop: `case`) and the driver that plays a catalog
scenario's script round by round on either era, or as a task (`driver`).

May import: the vocabulary (`catalog`, `revisions`, `verdict`), `connection` and
`reporting.normalize`; nothing of the checks, the cases or pytest's hooks.
"""
