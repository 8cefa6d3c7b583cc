"""The benchmark table: every measurement against its goal, as Markdown."""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import platform
import time

import anyio

from elicit_conformance.catalog import load

from . import __doc__ as DOC
from . import costs, measures

#: The goals the reference and the plugin are held to.
RATIO_GOAL = 1.2
BYTES_PER_ANSWER_GOAL = 100
SUITE_GOAL_S = 20.0
#: Wall time over a real transport, as a multiple of in-process.
TRANSPORT_GOALS = {"HTTP": 2.0, "stdio": 3.0, "HTTP, -n 2": 2.0}
CI_GOAL_S = 8 * 60.0
#: And its CPU, in suite units (issue 54): the figure measured when the unit was adopted
#: (f07f9e0: 1,462 CPU s over 10.7), so a new proof pays for itself inside it.
#: docs/benchmarks.md has the measurement.
CI_CAP_UNITS = 137.0
#: An unrelated project pays (almost) nothing for having the plugin installed.
INERT_GOAL = 1.1

def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m elicit_conformance.bench", description=DOC.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per server for leg timings")
    parser.add_argument("--no-suite", action="store_true", help="skip the suite wall-time rows")
    parser.add_argument("--ci-run", action="store_true",
                        help="also time .ci/run on a fresh clone (minutes: it installs and runs every test)")
    parser.add_argument("--deployment", action="store_true",
                        help="only the reference deployment through faults, full size (needs redis-server and haproxy)")
    args = parser.parse_args(argv)
    if args.deployment:
        return deployment_table()
    # pydocket's worker (the tasks extension's) logs its start and every task at INFO.
    logging.getLogger("docket").setLevel(logging.WARNING)
    servers = measures.servers()
    rows: list[tuple[str, ...]] = []
    ci_table = ""
    header = ("Measure", "reference", "MCP SDK peer", "hand guard", "goal", "met")

    catalog = load()
    scenarios = {k: s for k, s in catalog.scenarios.items() if s.expect.rounds or k.startswith("RES-1")}
    for case_id, scenario in scenarios.items():
        low = catalog.floor(scenario)
        counts = {name: anyio.run(measures.rounds, server, scenario) for name, server in servers.items()}
        ref = counts["reference"]
        rows.append((f"rounds {case_id} (floor {low})", str(ref), _n(counts["MCP SDK peer"]),
                     _n(counts["hand guard, one a round"]), "= floor", _yes(ref == low)))

    timed_servers = {name: servers[name] for name in ("hand guard, batched", "reference", "MCP SDK peer")}
    for tool in ("book_trip", "book_confirmed"):
        timed = anyio.run(measures.time_legs, timed_servers, tool, args.calls)
        guard = timed["hand guard, batched"]
        for leg, seconds in timed["reference"].items():
            ratio, sdk = seconds / guard[leg], timed["MCP SDK peer"][leg]
            rows.append((
                f"{tool} {leg}: server µs, median (x batched hand guard)",
                f"{seconds * 1e6:.0f} ({ratio:.2f}x)", f"{sdk * 1e6:.0f} ({sdk / guard[leg]:.2f}x)",
                f"{guard[leg] * 1e6:.0f}", f"<= {RATIO_GOAL}x", _yes(ratio <= RATIO_GOAL),
            ))

    ks = [1, 2, 4, 8, 16, 32]
    sizes = anyio.run(measures.state_bytes, ks)
    slope = (sizes[32] - sizes[1]) / 31
    worst = max(abs(sizes[k] - (sizes[1] + slope * (k - 1))) / sizes[k] for k in ks)
    rows.append(("request_state bytes after k = " + ", ".join(map(str, ks)) + " answers",
                 ", ".join(str(sizes[k]) for k in ks), "", "", "linear", _yes(worst < 0.05)))
    rows.append(("request_state bytes per answered question (slope)", f"{slope:.0f}", "", "",
                 f"<= ~{BYTES_PER_ANSWER_GOAL}", _yes(slope <= BYTES_PER_ANSWER_GOAL)))

    loaded, unloaded = measures.plugin_overhead()
    rows.append(("unrelated 3-test project, plugin installed (s, median of 7; x with -p no:elicit_conformance)",
                 f"{loaded:.2f} ({loaded / unloaded:.2f}x)", "", "", f"<= {INERT_GOAL}x",
                 _yes(loaded / unloaded <= INERT_GOAL)))

    if importlib.util.find_spec("fastmcp_tasks") is None:
        rows.append(("ORD-1 tasked against the foreground", "not measured: install elicit-conformance[tasks]",
                     "", "", "", ""))
    else:
        timed = anyio.run(measures.tasked_against_foreground, servers["reference"], "ORD-1", measures.TASK_CALLS)
        rows.append((f"ORD-1 (two rounds) tasked: wall ms, median of {measures.TASK_CALLS} (x the same call in the foreground)",
                     f"{timed.tasked * 1e3:.0f} ({timed.tasked / timed.foreground:.0f}x; foreground "
                     f"{timed.foreground * 1e3:.1f})", "", "", "measured", "n/a"))
        rows.append(("of it, waiting between tasks/get polls (ms, share; polls per call)",
                     f"{timed.waiting * 1e3:.0f} ({timed.waiting / timed.tasked:.0%}; {timed.polls:.0f} polls)",
                     "", "", "measured", "n/a"))

    suite_cpu = 0.0
    if not args.no_suite:
        times = measures.transports()
        base = times["in-process"]
        rows.append(("whole suite, both revisions, in-process (s)", f"{base.seconds:.1f} (exit {base.returncode})",
                     "", "", f"<= {SUITE_GOAL_S:.0f}", _yes(base.seconds <= SUITE_GOAL_S and base.returncode == 0)))
        for name, goal in TRANSPORT_GOALS.items():
            run, ratio = times[name], times[name].seconds / base.seconds
            rows.append((f"whole suite, both revisions, {name} (s, x in-process)",
                         f"{run.seconds:.1f} ({ratio:.2f}x, exit {run.returncode})", "", "",
                         f"<= {goal}x", _yes(ratio <= goal and run.returncode == 0)))
        same = all(t.statuses == base.statuses for t in times.values()) and bool(base.statuses)
        rows.append(("same verdict for every case on every transport (registration cases are in-process only)",
                     f"{len(base.statuses)} cases", "", "", "same", _yes(same)))
        suite_cpu = base.cpu
    if args.ci_run:
        # The unit is timed on this machine around the CI run, before and after: a machine's
        # speed drifts by 10% or more within minutes, and the two runs share it.
        before = suite_cpu or measures.suite().cpu
        ci = measures.ci_run()
        suite_cpu = (before + measures.suite().cpu) / 2
        rows.append(("`.ci/run` on a fresh clone: venv, install, every test (wall s)",
                     f"{ci.seconds:.0f} (exit {ci.returncode})", "", "", f"<= {CI_GOAL_S:.0f}",
                     _yes(ci.seconds <= CI_GOAL_S and ci.returncode == 0)))
        rows.append(("`.ci/run` on a fresh clone: CPU s of every process it ran",
                     f"{ci.cpu:.0f}", "", "", "measured", "n/a"))
        rows.append(("one in-process `pytest conformance/cases` against the reference: CPU s, the mean of a run "
                     "before `.ci/run` and one after (the suite unit)", f"{suite_cpu:.1f}", "", "", "measured", "n/a"))
        rows.append(("`.ci/run` in suite units (its CPU s over the unit's)", f"{ci.cpu / suite_cpu:.1f}", "", "",
                     f"<= {CI_CAP_UNITS:.0f}", _yes(ci.cpu / suite_cpu <= CI_CAP_UNITS and ci.returncode == 0)))
        if ci.files:
            ci_table = "\n".join(costs.units_table(ci.files, suite_cpu))

    print(f"elicit-conformance benchmarks, {time.strftime('%Y-%m-%d')}, {platform.machine()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}\n")
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if ci_table:
        print(f"\n`.ci/run`'s cost per test file, in suite units:\n\n{ci_table}")


def _n(value: int | None) -> str:
    return "n/a" if value is None else str(value)


def _yes(ok: bool) -> str:
    return "yes" if ok else "**no**"



#: The deployment's runs, full size: (what, calls, tasked, which fault, Redis persists).
DEPLOYMENT_RUNS = (
    ("modern calls, process 1 killed and restarted", 200, False, "kill", True),
    ("tasked calls, process 2 (a worker) killed and restarted", 50, True, "kill", True),
    ("tasked calls, Redis killed and restarted on its data", 50, True, "redis", True),
    ("tasked calls, Redis restarted, no persistence (not the advised set-up)", 50, True, "redis", False),
)


def deployment_table() -> None:
    import tempfile
    from pathlib import Path

    from elicit_conformance.dev import deployment

    header = ("Fault (2 processes behind docs/haproxy.cfg)", "calls", "completed at once", "after one retry",
              "failed, told why", "another's answers", "body runs per call", "HTTP 5xx seen", "tasks made / lost")
    rows = []
    with tempfile.TemporaryDirectory(prefix="elicit-deployment-") as directory:
        for number, (what, calls, tasked, fault, persistent) in enumerate(DEPLOYMENT_RUNS):
            with deployment.Deployment(Path(directory) / str(number), persistent=persistent) as deployed:
                # While every call is in flight (50 tasked calls take about a second); Redis
                # as the first task is made.
                chosen = (deployment.redis_restart(deployed, after=0.0) if fault == "redis"
                          else deployment.kill_and_restart(deployed, 2 if tasked else 1, after=0.1 if tasked else 0.5,
                                                           down=2.0))
                drive = deployment.tasked_calls if tasked else deployment.modern_calls
                tally = anyio.run(drive, deployed.url, calls, chosen)
            failed = sum(tally.failed.values())
            rows.append((what, str(tally.calls), str(tally.at_once), str(tally.after_retry), str(failed),
                         str(tally.wrong), ", ".join(f"{runs}: {n}" for runs, n in sorted(tally.runs.items())),
                         str(tally.http_5xx), f"{tally.tasks} / {tally.lost}" if tasked else "n/a"))
            for why, count in tally.failed.most_common():
                print(f"{what}: {count} x {why}")
    print(f"\nelicit-conformance deployment through faults, {time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores\n")
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
