#!/usr/bin/env bash
# docker compose: creates one database and one login role per service, each role able to connect only
# to its own database. The local stack does the same in infra/src/postgres.ts (a test checks they agree).
set -euo pipefail

for svc in order inventory points; do
  var="$(echo "$svc" | tr '[:lower:]' '[:upper:]')_DB_PASSWORD"
  password="${!var:?set $var (see .env.example)}"
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres -v pw="$password" <<SQL
CREATE ROLE ${svc}_svc LOGIN PASSWORD :'pw';
CREATE DATABASE orderflow_${svc} OWNER ${svc}_svc;
REVOKE ALL ON DATABASE orderflow_${svc} FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE orderflow_${svc} TO ${svc}_svc;
SQL
done
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres -c "REVOKE ALL ON DATABASE postgres FROM PUBLIC"
