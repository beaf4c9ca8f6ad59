#!/usr/bin/env bash
# Partitions between the broker nodes, as CI runs them: the local stack started again with each node in
# a network namespace of its own (`stack up --netns`, root), the four partition scenarios at the
# default rate with the saga's audit and the broker probe's counts, then `stack down`, which must
# leave no namespace, veth or bridge behind. The stack is left down.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/bootstrap.sh"

say() { echo "[partition-check] $*"; }
pnpm --silent stack down
t0=$(date +%s)
pnpm --silent stack up --netns
say "up with the nodes in namespaces in $(($(date +%s) - t0)) s"
status=0
pnpm --silent fault partition-halves partition-ring partition-isolate partition-bridge || status=$?
pnpm --silent stack down
offset=${ORDERFLOW_PORT_OFFSET:-0}
left=$(ip netns list | grep -c "^orderflow-${offset}-broker-" || true)
if [ "$left" != 0 ] || ip link show "of${offset}br" >/dev/null 2>&1 ||
  ip link show | grep -q ": of${offset}v[0-9]"; then
  say "stack down left namespaces or links behind:"
  ip netns list
  ip -br link show
  exit 1
fi
say "stack down left no namespace, veth or bridge"
exit "$status"
