#!/usr/bin/env bash
# The suite against your server (or client), as a CI job runs it (docs/ci/github-actions.yml).
#
#   docs/ci/conformance.sh REPORT_DIR TARGET_OPTION [PYTEST_OPTION...]
#
#   TARGET_OPTION   --server=module:app, --server=URL or --server-command=COMMAND (the server
#                   cases), or --client-command=COMMAND (the client cases)
#
# From the environment, each optional:
#   ELICIT_BASELINE     your expected failures (--conformance-baseline)
#   ELICIT_SNAPSHOTS    your golden transcripts (--conformance-snapshots)
#   ELICIT_BASE_REPORT  the report of the branch you merge into, to compare with
#
# Writes REPORT_DIR/summary.md (the verdicts), changes.md (what changed on the wire)
# and, with a base report, compare.md (verdicts and transcripts against it). Exits
# non-zero when a case fails beyond the baseline, a transcript changed, or a
# verdict got worse than the base report's.
set -uo pipefail
if [ "$#" -lt 2 ]; then
  echo "usage: $0 REPORT_DIR TARGET_OPTION [PYTEST_OPTION...]" >&2
  exit 2
fi
report="$1"
shift
cases=elicit_conformance.cases
case "$1" in --client-command=*) cases=elicit_conformance.clients ;; esac
options=(--pyargs "$cases" -p no:cacheprovider "--conformance-report=$report" "$@")
[ -n "${ELICIT_BASELINE:-}" ] && options+=("--conformance-baseline=$ELICIT_BASELINE")
[ -n "${ELICIT_SNAPSHOTS:-}" ] && options+=("--conformance-snapshots=$ELICIT_SNAPSHOTS")

python -m pytest "${options[@]}"
status=$?
[ "$status" -eq 5 ] && status=1  # no case collected proves nothing

if [ -n "${ELICIT_BASE_REPORT:-}" ]; then
  python -m elicit_conformance.compare "$ELICIT_BASE_REPORT" "$report" -o "$report/compare.md" > /dev/null
  compared=$?
  [ "$status" -eq 0 ] && status=$compared
fi
exit "$status"
