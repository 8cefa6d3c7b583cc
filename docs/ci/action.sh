#!/usr/bin/env bash
# The action's run step (action.yml): its inputs, as INPUT_* variables, become
# conformance.sh's options; the verdicts go to the job summary ($GITHUB_STEP_SUMMARY)
# and the step's outputs ($GITHUB_OUTPUT). Exits as conformance.sh does.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
report="${INPUT_REPORT:-elicit-conformance-report}"

given=0
for input in "${INPUT_SERVER:-}" "${INPUT_SERVER_COMMAND:-}" "${INPUT_CLIENT_COMMAND:-}"; do
  [ -n "$input" ] && given=$((given + 1))
done
if [ "$given" -eq 1 ] && [ -n "${INPUT_SERVER:-}" ]; then
  target="--server=$INPUT_SERVER"
elif [ "$given" -eq 1 ] && [ -n "${INPUT_SERVER_COMMAND:-}" ]; then
  target="--server-command=$INPUT_SERVER_COMMAND"
elif [ "$given" -eq 1 ]; then
  target="--client-command=$INPUT_CLIENT_COMMAND"
else
  echo "elicit-conformance: give exactly one of the inputs 'server' (module:app or URL), 'server-command' and 'client-command'" >&2
  echo "verdict=fail" >> "${GITHUB_OUTPUT:-/dev/null}"
  exit 2
fi
options=()
[ -n "${INPUT_REVISION:-}" ] && options+=("--revision=$INPUT_REVISION")
[ -n "${INPUT_NOT_IMPLEMENTED:-}" ] && options+=("--conformance-not-implemented=$INPUT_NOT_IMPLEMENTED")
[ "${INPUT_STRICT:-false}" = "true" ] && options+=(--conformance-strict)
read -ra extra <<< "${INPUT_PYTEST_ARGS:-}"
base="${INPUT_BASE_REPORT:-}"
if [ -n "$base" ] && [ ! -f "$base/index.json" ]; then
  echo "elicit-conformance: no report at base-report=$base (no run of the base branch): not compared"
  base=""
fi

ELICIT_BASELINE="${INPUT_BASELINE:-}" ELICIT_SNAPSHOTS="${INPUT_SNAPSHOTS:-}" ELICIT_BASE_REPORT="$base" \
  bash "$here/conformance.sh" "$report" "$target" "${options[@]}" "${extra[@]}"
status=$?

if [ "${INPUT_SUMMARY:-true}" = "true" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  for part in summary.md changes.md compare.md; do
    if [ -f "$report/$part" ]; then cat "$report/$part" >> "$GITHUB_STEP_SUMMARY"; echo >> "$GITHUB_STEP_SUMMARY"; fi
  done
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  python - "$report/index.json" "$status" >> "$GITHUB_OUTPUT" <<'EOF'
import json, sys
try:
    totals = json.load(open(sys.argv[1]))["totals"]
except (OSError, ValueError, KeyError):
    totals = {}
print(f"verdict={'pass' if sys.argv[2] == '0' else 'fail'}")
print(f"passed={totals.get('pass', 0)}")
print(f"failed={totals.get('fail', 0) + totals.get('timed out', 0)}")
print(f"totals={json.dumps(totals)}")
EOF
fi
exit "$status"
