#!/usr/bin/env bash
# Entry point of the local postgres image (see its Dockerfile): on an empty PGDATA, initdb with
# POSTGRES_USER/POSTGRES_PASSWORD, POSTGRES_DB, then /docker-entrypoint-initdb.d on a server reachable
# over its Unix socket only (so no client sees a half-initialised instance), then the command as postgres.
set -euo pipefail

die() {
  echo "postgres-entrypoint: $*" >&2
  exit 1
}

# `docker run IMAGE -c key=value` means the server with those settings.
if [[ "${1:-}" == -* ]]; then
  set -- postgres "$@"
fi

if [[ "${1:-}" != postgres ]]; then
  exec "$@"
fi

if [[ "$(id -u)" == 0 ]]; then
  # A fresh named volume is root's: hand the data folder to postgres, then run this script again as it.
  mkdir -p "$PGDATA"
  chown postgres:postgres /var/lib/postgresql "$(dirname "$PGDATA")"
  find "$PGDATA" \! -user postgres -exec chown postgres:postgres '{}' +
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups bash "${BASH_SOURCE[0]}" "$@"
fi

if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  POSTGRES_USER="${POSTGRES_USER:-postgres}"
  POSTGRES_DB="${POSTGRES_DB:-$POSTGRES_USER}"
  export POSTGRES_USER POSTGRES_DB
  [[ -n "${POSTGRES_PASSWORD:-}" ]] || die "POSTGRES_PASSWORD is empty: the superuser $POSTGRES_USER needs a password"

  echo "postgres-entrypoint: initialising $PGDATA for superuser $POSTGRES_USER"
  # Local (socket) logins are trusted inside the container; every TCP login needs its password.
  # shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of options, as in the official image.
  initdb --pgdata="$PGDATA" --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") \
    --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 ${POSTGRES_INITDB_ARGS:-}
  printf '\n# Other containers of the network.\nhost all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
  printf "\nlisten_addresses = '*'\n" >>"$PGDATA/postgresql.conf"

  pg_ctl --pgdata="$PGDATA" --wait --silent -o "-c listen_addresses='' -p 5432" start
  if [[ "$POSTGRES_DB" != postgres ]]; then
    psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres -v db="$POSTGRES_DB" \
      <<<'CREATE DATABASE :"db";'
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    [[ -e "$f" ]] || continue
    case "$f" in
      # An executable script runs on its own; any other is sourced, as the official image does.
      *.sh)
        echo "postgres-entrypoint: running $f"
        if [[ -x "$f" ]]; then "$f"; else
          # shellcheck disable=SC1090
          . "$f"
        fi
        ;;
      *.sql)
        echo "postgres-entrypoint: running $f"
        psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -f "$f"
        ;;
      *) echo "postgres-entrypoint: ignoring $f" ;;
    esac
  done
  pg_ctl --pgdata="$PGDATA" --wait --silent -m fast stop
  echo "postgres-entrypoint: initialised; starting the server"
fi

exec "$@"
