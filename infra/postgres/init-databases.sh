#!/usr/bin/env bash
# docker compose: creates one database and one login role per service, each role able to connect only
# to its own database. The local stack does the same in infra/src/postgres.ts (a test checks they agree).
set -euo pipefail

# The secret check lives beside the compose files in the repository and at /etc/orderflow in the container.
for lib in "${BASH_SOURCE[0]%/*}/../compose/check-secrets.sh" /etc/orderflow/check-secrets.sh; do
  [[ -r "$lib" ]] && break
done
# shellcheck source=SCRIPTDIR/../compose/check-secrets.sh
source "$lib"
# The admin password is checked by compose's check-env container, under its .env name.
require_secrets ORDER_DB_PASSWORD INVENTORY_DB_PASSWORD POINTS_DB_PASSWORD POSTGRES_MONITOR_PASSWORD \
  POSTGRES_AUDITOR_PASSWORD

# The control service's audit login (docker-compose.yml's `control`): reads the three databases, writes none.
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres -v pw="$POSTGRES_AUDITOR_PASSWORD" <<SQL
CREATE ROLE orderflow_auditor LOGIN PASSWORD :'pw';
SQL

for svc in order inventory points; do
  var="$(echo "$svc" | tr '[:lower:]' '[:upper:]')_DB_PASSWORD"
  password="${!var}"
  # The password reaches SQL as a psql variable (:'pw' quotes it), never through the shell or the SQL text.
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres -v pw="$password" <<SQL
CREATE ROLE ${svc}_svc LOGIN PASSWORD :'pw';
CREATE DATABASE orderflow_${svc} OWNER ${svc}_svc;
REVOKE ALL ON DATABASE orderflow_${svc} FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE orderflow_${svc} TO ${svc}_svc;
GRANT CONNECT ON DATABASE orderflow_${svc} TO orderflow_auditor;
SQL
  # The service's migrations create its tables later, as ${svc}_svc: every table it creates in public
  # is readable by the auditor from the start (default privileges are per database and creating role).
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "orderflow_${svc}" <<SQL
ALTER DEFAULT PRIVILEGES FOR ROLE ${svc}_svc IN SCHEMA public GRANT SELECT ON TABLES TO orderflow_auditor;
SQL
done
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres -c "REVOKE ALL ON DATABASE postgres FROM PUBLIC"
# The PostgreSQL exporter's login: statistics (pg_monitor) of the whole instance, no service's tables.
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres -v pw="$POSTGRES_MONITOR_PASSWORD" <<SQL
CREATE ROLE orderflow_monitor LOGIN PASSWORD :'pw';
GRANT pg_monitor TO orderflow_monitor;
GRANT CONNECT ON DATABASE postgres TO orderflow_monitor;
SQL
