#!/usr/bin/env bash
# docker compose one-shot: once all three nodes are in ONE cluster, import the ONE definitions file (so
# every quorum queue gets three members), give the service users their passwords (none is in the
# repository), and spread the quorum-queue leaders. The local stack runs the same steps (infra/src/rabbitmq.ts).
# Every wait is bounded, and so is every CLI call (many have no timeout of their own): the script ends in
# success or in an error saying what is missing, never in a hang.
#
# Environment, besides the secrets: SETUP_DEFINITIONS (default /etc/orderflow/definitions.json) and the
# deadlines below in seconds, so that a test can run the script outside a container with fake CLIs.
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
DEFINITIONS="${SETUP_DEFINITIONS:-/etc/orderflow/definitions.json}"
# A global runtime parameter of the cluster: the SHA-256 of the definitions file last imported in full.
IMPORTED_MARKER="orderflow_definitions_sha256"

NODE_WAIT_S="${SETUP_NODE_WAIT_S:-120}"       # for each node to run
JOIN_WAIT_S="${SETUP_JOIN_WAIT_S:-60}"        # for nodes 2 and 3 to show up in node 1's cluster
CLUSTER_WAIT_S="${SETUP_CLUSTER_WAIT_S:-120}" # for the cluster to have 3 nodes online
QUEUE_WAIT_S="${SETUP_QUEUE_WAIT_S:-60}"      # for every queue to exist after an import
CALL_TIMEOUT_S="${SETUP_CALL_TIMEOUT_S:-60}"  # for one CLI call (import and rebalance included)
POLL_S="${SETUP_POLL_S:-2}"                   # between two tries of a wait

say() { echo "rabbitmq-setup: $*"; }
die() {
  echo "rabbitmq-setup: $*" >&2
  exit 1
}

[[ -n "${EPOCHREALTIME-}" ]] || die "bash 5 or later is needed (for EPOCHREALTIME); this is $BASH_VERSION"

for name in SETUP_NODE_WAIT_S SETUP_JOIN_WAIT_S SETUP_CLUSTER_WAIT_S SETUP_QUEUE_WAIT_S SETUP_CALL_TIMEOUT_S; do
  value="${!name-}"
  [[ -z "$value" || "$value" =~ ^[1-9][0-9]{0,4}$ ]] ||
    die "$name must be a whole number of seconds from 1 to 99999, not \"$value\""
done
[[ "$POLL_S" =~ ^([1-9][0-9]{0,2}|[0-9]?\.[0-9]*[1-9][0-9]*)$ ]] ||
  die "SETUP_POLL_S must be a number of seconds above 0 and below 1000, not \"$POLL_S\""
[[ -r "$DEFINITIONS" ]] || die "cannot read the definitions file $DEFINITIONS"
# The image has no JSON tool. Every queue of the file states its x-queue-type (a test holds the file to
# that) and nothing else there has that key, so counting the keys counts the queues, whatever the layout.
EXPECTED_QUEUES=$(($({ grep -o '"x-queue-type"' "$DEFINITIONS" || true; } | wc -l)))
((EXPECTED_QUEUES > 0)) || die "$DEFINITIONS declares no queue (no \"x-queue-type\" key in it)"
DEFINITIONS_SHA="$(sha256sum "$DEFINITIONS" | cut -d' ' -f1)"

# bounded COMMAND...: COMMAND, stopped after CALL_TIMEOUT_S (SIGTERM, then SIGKILL 5 s later); status 124
# when it was stopped.
bounded() { timeout --kill-after=5 "$CALL_TIMEOUT_S" "$@"; }
# --silent: no banner and no table header, so a listing has one line per row.
ctl() { bounded rabbitmqctl --silent -n "$@"; }

# Microseconds since the epoch. Bash's SECONDS counts whole seconds from the shell's start, which would
# cut a deadline short by up to one second.
now_us() {
  local t="${EPOCHREALTIME/[.,]/}"
  echo "$((10#$t))"
}

# within SECONDS COMMAND...: runs COMMAND every POLL_S until it succeeds (0) or SECONDS have passed (1).
within() {
  local end=$(($(now_us) + $1 * 1000000))
  shift
  until "$@" >/dev/null 2>&1; do
    (($(now_us) < end)) || return 1
    sleep "$POLL_S"
  done
}

node_running() { bounded rabbitmq-diagnostics -q -n "$1" check_running; }

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

queue_count() { ctl "$SEED" list_queues -p "$VHOST" name | wc -l; }
all_queues() { (($(queue_count) >= EXPECTED_QUEUES)); }
imported_already() {
  ctl "$SEED" list_global_parameters | grep -E "^${IMPORTED_MARKER}[[:space:]]" | grep -F "$DEFINITIONS_SHA" >/dev/null
}

for node in "${NODES[@]}"; do
  within "$NODE_WAIT_S" node_running "$node" ||
    die "$node is not running after $NODE_WAIT_S s; see docker compose logs ${node#rabbit@}"
done
for node in "${NODES[@]:1}"; do
  within "$JOIN_WAIT_S" in_seed_cluster "$node" || join_seed "$node"
done
# The CLI's own timeout ends this wait; the outer bound only catches a call that hangs past it.
await_bound_s=$((CLUSTER_WAIT_S + CALL_TIMEOUT_S))
timeout --kill-after=5 "$await_bound_s" \
  rabbitmqctl --silent -n "$SEED" await_online_nodes 3 --timeout "$CLUSTER_WAIT_S" ||
  die "the cluster of $SEED has only these nodes running after $CLUSTER_WAIT_S s: $(cluster_list "$SEED" running_nodes | xargs)"
say "3 nodes running in the cluster of $SEED"

# An import sets the service users' password hashes to the file's empty ones until change_password
# below runs; their logins fail meanwhile. So a file already imported, with all its queues there, is not
# imported again, and an `up` that changes nothing never locks the services out.
imported=0
if imported_already && all_queues; then
  say "$DEFINITIONS is unchanged since its last import and its $EXPECTED_QUEUES queues exist: not imported again"
else
  ctl "$SEED" import_definitions "$DEFINITIONS" || die "the import of $DEFINITIONS into $SEED failed"
  imported=1
fi
for svc in order inventory points; do
  var="$(echo "$svc" | tr '[:lower:]' '[:upper:]')_BROKER_PASSWORD"
  # Read from stdin, so the password is not on a command line (ps) and cannot be taken for an option.
  printf '%s\n' "${!var}" | ctl "$SEED" change_password "${svc}-svc" ||
    die "could not set the password of ${svc}-svc"
done

# import_definitions returns before every queue exists.
within "$QUEUE_WAIT_S" all_queues ||
  die "only $(queue_count) of $EXPECTED_QUEUES queues exist $QUEUE_WAIT_S s after the import of $DEFINITIONS"
if ((imported)); then
  # Recorded only now, so a run cut short before its queues existed imports again next time.
  ctl "$SEED" set_global_parameter "$IMPORTED_MARKER" "\"$DEFINITIONS_SHA\"" ||
    die "could not record the import of $DEFINITIONS"
fi
bounded rabbitmq-queues -q -n "$SEED" rebalance quorum || die "rebalancing the quorum queue leaders failed"
say "topology in place, passwords set, quorum leaders spread"
