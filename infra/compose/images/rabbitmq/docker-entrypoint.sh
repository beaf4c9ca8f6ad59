#!/usr/bin/env bash
# Entry point of the local rabbitmq image: rabbitmq-server runs as the rabbitmq user with its HOME in the
# data folder; RabbitMQ itself reads RABBITMQ_DEFAULT_USER/PASS/VHOST and RABBITMQ_ERLANG_COOKIE, and the
# node is rabbit@<short host name> (compose's `hostname:`). Any other command runs as given.
set -euo pipefail

if [[ "${1:-}" == rabbitmq-server && "$(id -u)" == 0 ]]; then
  # A fresh named volume is root's.
  find /var/lib/rabbitmq \! -user rabbitmq -exec chown rabbitmq:rabbitmq '{}' +
  # The cookie file as well, so that root's CLI calls (the health check) agree with the node even when
  # they do not read the variable.
  if [[ -n "${RABBITMQ_ERLANG_COOKIE:-}" ]]; then
    printf '%s' "$RABBITMQ_ERLANG_COOKIE" >/var/lib/rabbitmq/.erlang.cookie
    chown rabbitmq:rabbitmq /var/lib/rabbitmq/.erlang.cookie
    chmod 600 /var/lib/rabbitmq/.erlang.cookie
  fi
  export HOME=/var/lib/rabbitmq
  exec setpriv --reuid=rabbitmq --regid=rabbitmq --init-groups "$@"
fi
exec "$@"
