"""What a case is made of: the `Case` a test receives (its target, its transcript, the
connections it opens, its event loop: `case`), the driver that plays a catalog
scenario's script round by round on either era (`driver`), and the same call driven
as a background task (`tasked`).

May import: the vocabulary (`catalog`, `revisions`, `verdict`), `connection` and
`reporting.normalize`; nothing of the checks, the cases or pytest's hooks.
"""
