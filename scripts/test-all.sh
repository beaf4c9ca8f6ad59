#!/usr/bin/env bash
# Quick start command 2: every check and every test, against a real local stack.
# Leaves the stack running afterwards (`pnpm stack down` stops it); CI stops it itself.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"

pnpm --silent typecheck
pnpm --silent lint
pnpm --silent k6:check
pnpm --silent stack up
# Each service's migrations must produce its Prisma schema (replayed on scratch databases).
pnpm --silent db:check
report=reports/vitest-results.json
rm -f "$report"
status=0
pnpm --silent test || status=$?
# A closing line any CI can read, whatever the runner prints.
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
' "$report" || echo "no test report: the test run did not finish"
exit "$status"
