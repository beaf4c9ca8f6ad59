#!/usr/bin/env bash
# The Docker user's path, end to end, as CI runs it: the compose stack booted (engine and images
# included, built from Debian packages where they cannot be pulled), an order carried through the saga,
# a broker container SIGKILLed under load with the audit's verdict, the orders still there after a
# `down` and an `up`, then everything removed with its volumes and the engine stopped.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"

say() { echo "[compose-check] $*"; }
orders=reports/compose/orders.jsonl
mkdir -p reports/compose
rm -f "$orders"
[ -f .env ] || pnpm --silent env:init

t0=$(date +%s)
pnpm --silent compose up
say "up in $(($(date +%s) - t0)) s (engine and images included when cold)"
pnpm --silent compose saga --record "$orders"
# kill -9 of the container leading a work queue under 100 orders/s, restarted later; the audit must
# find nothing lost and nothing applied twice (the command exits 1 otherwise).
pnpm --silent fault leader-loss --target compose
pnpm --silent compose saga --record "$orders"

pnpm --silent compose down
t0=$(date +%s)
pnpm --silent compose up
say "up again in $(($(date +%s) - t0)) s"
pnpm --silent compose saga --verify "$orders"
pnpm --silent compose saga --record "$orders"

pnpm --silent compose down --volumes --engine
say "passed"
