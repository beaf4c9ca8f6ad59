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
# The browser tests (the report, the control service's console) drive Debian's Chromium; as root it is
# installed here (otherwise testkit/src/chromium.ts names the package to install).
if [ "$(id -u)" = 0 ] && [ ! -x /usr/bin/chromium ]; then
  echo "[bootstrap] installing Debian's chromium"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 ||
    { apt-get update >/dev/null &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null; }
fi
pnpm --silent -r --if-present generate
