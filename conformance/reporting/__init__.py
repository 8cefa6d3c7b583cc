"""What a run leaves behind: the report (`report`: `index.json`, the transcripts,
`summary.md`, `verdicts.md`), expected-failure files (`baseline`), the golden
transcripts compared, written and diffed (`snapshot`), and transcripts made stable
enough to compare (`normalize`).

May import: the vocabulary (`requirements`, `verdict`) and `connection`'s transcript;
nothing of the harness, the cases or pytest's hooks.
"""
