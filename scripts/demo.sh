#!/usr/bin/env bash
# Quick start command 1: the whole system up, then a smoke check through every part of it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"

pnpm --silent stack up
pnpm --silent stack smoke
