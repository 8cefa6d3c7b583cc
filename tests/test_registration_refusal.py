"""REG/refusal judges what a registration error says, not its class: a library's
own error naming what is wrong is a refusal, a crash that names nothing of the
declaration is not. Judged through a registration adapter written here, beside
the reference's app, whose probes raise what other libraries were seen to raise."""

from __future__ import annotations

from pathlib import Path

from tests.suite import run

ADAPTER = '''
from elicit_conformance.reference.app import app
from elicit_conformance.reference.app.registration_probes import PROBES


def _raise(error):
    def register():
        raise error
    return register


def registration():
    return PROBES | {
        # fastmcp's own words for an annotation it cannot resolve: names the missing name.
        "REG-10/name": _raise(NameError("name 'NotImported' is not defined")),
        # Crashes while reading the declaration, of no internal class, naming nothing of it:
        # inspect on a builtin, and isinstance called wrongly.
        "REG-2": _raise(ValueError("no signature found for builtin <built-in function max>")),
        "REG-8": _raise(TypeError("isinstance expected 2 arguments, got 1")),
        # Internal by class: an empty choice list indexed; a KeyError naming the parameter
        # is still a failed lookup.
        "REG-6": _raise(IndexError("list index out of range")),
        "REG-7": _raise(KeyError("ctx")),
    }
'''


def test_a_refusal_names_what_is_at_fault_and_a_crash_does_not(tmp_path: Path) -> None:
    (tmp_path / "adapter_under_test.py").write_text(ADAPTER)
    result = run(tmp_path / "run", "--server=adapter_under_test:app", env={"PYTHONPATH": str(tmp_path)},
                 cases=("conformance/cases/test_registration.py",))
    verdicts = {c["test_id"].split("[")[1].rstrip("]"): c for c in result.index["cases"] if "[REG" in c["test_id"]}
    assert verdicts["REG-10/name"]["status"] == "pass", verdicts["REG-10/name"]
    for probe, said in {"REG-2": "names none of outbound, inbound, book",
                        "REG-8": "names none of seats, book", "REG-6": "an internal error",
                        "REG-7": "an internal error"}.items():
        verdict = verdicts[probe]
        assert verdict["status"] == "fail" and "REG/refusal" in verdict["message"], verdict
        assert said in verdict["message"], verdict["message"]
    failed = {case for case, v in verdicts.items() if v["status"] == "fail"}
    assert failed == {"REG-2", "REG-8", "REG-6", "REG-7"}, failed
