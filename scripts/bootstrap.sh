#!/usr/bin/env bash
# Sourced by the Quick start scripts: installs the pinned pnpm if missing, then the workspace.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

want="$(node -p "require('./package.json').packageManager.split('@')[1]")"
if [ "$(pnpm --version 2>/dev/null || true)" != "$want" ]; then
  echo "[bootstrap] installing pnpm $want"
  npm install --global --no-fund --no-audit "pnpm@$want" >/dev/null
fi
pnpm install --frozen-lockfile --reporter=silent
pnpm --silent -r --if-present generate
