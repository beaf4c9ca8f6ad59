#!/usr/bin/env bash
# docker compose one-shot: once all three nodes are in ONE cluster, import the ONE definitions file (so
# every quorum queue gets three members), give the service users their passwords (none is in the
# repository), and spread the quorum-queue leaders. The local stack runs the same steps (infra/src/rabbitmq.ts).
# Every wait is bounded: it ends in success or in an error saying what is missing, never in a hang.
set -euo pipefail

# The secret check lives beside the compose files in the repository and at /etc/orderflow in the container.
for lib in "${BASH_SOURCE[0]%/*}/../../compose/check-secrets.sh" /etc/orderflow/check-secrets.sh; do
  [[ -r "$lib" ]] && break
done
# shellcheck source=SCRIPTDIR/../../compose/check-secrets.sh
source "$lib"
require_secrets RABBITMQ_ERLANG_COOKIE ORDER_BROKER_PASSWORD INVENTORY_BROKER_PASSWORD POINTS_BROKER_PASSWORD

SEED="rabbit@rabbitmq-1"
NODES=("$SEED" "rabbit@rabbitmq-2" "rabbit@rabbitmq-3")
VHOST="orderflow"
DEFINITIONS="/etc/orderflow/definitions.json"

say() { echo "rabbitmq-setup: $*"; }
die() {
  echo "rabbitmq-setup: $*" >&2
  exit 1
}
# --silent: no banner and no table header, so a listing has one line per row.
ctl() { rabbitmqctl --silent -n "$@"; }

# within SECONDS COMMAND...: runs COMMAND every 2 s until it succeeds (0) or SECONDS have passed (1).
within() {
  local end=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < end)) || return 1
    sleep 2
  done
}

# The node names listed under KEY ("running_nodes", "disk_nodes") in NODE's own view of its cluster.
cluster_list() {
  ctl "$1" cluster_status --formatter json | grep -o "\"$2\": *\[[^]]*\]" | grep -o 'rabbit@[A-Za-z0-9._-]*' || true
}

in_seed_cluster() { cluster_list "$SEED" running_nodes | grep -Fx "$1" >/dev/null; }

# A node that missed the others' start-up window boots as a cluster of its own and stays there. Reset it
# and join it to node 1, but only while its cluster holds no queues of ours: a reset discards them.
join_seed() {
  local node="$1" queues
  if cluster_list "$node" disk_nodes | grep -Fx "$SEED" >/dev/null; then
    die "$node counts $SEED as a member but is not running in its cluster; see docker compose logs for both"
  fi
  queues="$(ctl "$node" list_queues -p "$VHOST" name)" ||
    die "cannot list the queues of $node's own cluster, so it is not reset; see docker compose logs"
  if [[ -n "$queues" ]]; then
    die "$node is in a cluster apart from $SEED that holds $(wc -l <<<"$queues") queues of vhost $VHOST;" \
      "resetting it would delete them. Join it by hand, or start over with docker compose down -v"
  fi
  say "$node formed a cluster of its own (it missed the others' start-up): resetting it and joining $SEED"
  ctl "$node" stop_app || die "stop_app on $node failed"
  ctl "$node" reset || die "reset of $node failed"
  ctl "$node" join_cluster "$SEED" || die "$node could not join $SEED"
  ctl "$node" start_app || die "start_app on $node failed after it joined $SEED"
}

for node in "${NODES[@]}"; do
  within 120 rabbitmq-diagnostics -q -n "$node" check_running ||
    die "$node is not running after 120 s; see docker compose logs ${node#rabbit@}"
done
for node in "${NODES[@]:1}"; do
  within 60 in_seed_cluster "$node" || join_seed "$node"
done
ctl "$SEED" await_online_nodes 3 --timeout 120 ||
  die "the cluster of $SEED has only these nodes running after 120 s: $(cluster_list "$SEED" running_nodes | xargs)"
say "3 nodes running in the cluster of $SEED"

ctl "$SEED" import_definitions "$DEFINITIONS"
for svc in order inventory points; do
  var="$(echo "$svc" | tr '[:lower:]' '[:upper:]')_BROKER_PASSWORD"
  # Read from stdin, so the password is not on a command line (ps) and cannot be taken for an option.
  printf '%s\n' "${!var}" | ctl "$SEED" change_password "${svc}-svc"
done

# import_definitions returns before every queue exists.
queue_count() { ctl "$SEED" list_queues -p "$VHOST" name | wc -l; }
enough_queues() { [ "$(queue_count)" -ge 15 ]; }
within 60 enough_queues || die "only $(queue_count) of 15 queues exist 60 s after the import of $DEFINITIONS"
rabbitmq-queues -q -n "$SEED" rebalance quorum
say "topology imported, passwords set, quorum leaders spread"
