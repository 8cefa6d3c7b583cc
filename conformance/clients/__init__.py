"""The client cases: a client under test answers scenario servers that ask.

Run them with `pytest --pyargs elicit_conformance.clients --client-command="<cmd>"`: each
case starts its scenario server (`scenario_server`) on 127.0.0.1, runs the command as
the official conformance suite's client mode does (`command`), and judges what the
client sent against the client rows (`requirements.toml`). The scenarios
(`scenarios`) are data; docs/client-contract.md says what a client does for each.
"""
