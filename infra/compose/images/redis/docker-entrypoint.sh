#!/usr/bin/env bash
# Entry point of the local redis image: `redis-server ...` (or options alone) runs as the redis user;
# any other command runs as given.
set -euo pipefail

if [[ "${1:-}" == -* ]]; then
  set -- redis-server "$@"
fi
if [[ "${1:-}" == redis-server && "$(id -u)" == 0 ]]; then
  find . \! -user redis -exec chown redis:redis '{}' +
  exec setpriv --reuid=redis --regid=redis --init-groups "$@"
fi
exec "$@"
