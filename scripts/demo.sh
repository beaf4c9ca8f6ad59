#!/usr/bin/env bash
# Quick start command 1: the whole system up (PostgreSQL, Redis, 3 broker nodes, the three services and
# their relays), then the demo: a burst of orders while a broker node and the inventory service are
# killed, each order's final state, stock and points, and the audit's verdict.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"

pnpm --silent stack up
pnpm --silent stack smoke
pnpm --silent demo
