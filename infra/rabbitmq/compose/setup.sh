#!/usr/bin/env bash
# docker compose one-shot: once all three nodes are in the cluster, import the ONE definitions file
# (so every quorum queue gets three members), give the service users their passwords (none is in the
# repository), and spread the quorum-queue leaders. The local stack runs the same steps (infra/src/rabbitmq.ts).
set -euo pipefail
node="rabbit@rabbitmq-1"
rabbitmqctl -n "$node" await_online_nodes 3
rabbitmqctl -n "$node" import_definitions /etc/orderflow/definitions.json
for svc in order inventory points; do
  var="$(echo "$svc" | tr '[:lower:]' '[:upper:]')_BROKER_PASSWORD"
  rabbitmqctl -n "$node" change_password "${svc}-svc" "${!var:?set $var (see .env.example)}"
done
for _ in $(seq 1 60); do
  [ "$(rabbitmqctl -n "$node" -q list_queues -p orderflow name | wc -l)" -ge 15 ] && break
  sleep 1
done
rabbitmq-queues -n "$node" rebalance quorum
