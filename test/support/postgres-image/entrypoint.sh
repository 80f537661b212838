#!/bin/sh
# What the official postgres image does on start, as far as compose.yaml uses it: on an empty PGDATA, a cluster
# whose superuser is POSTGRES_USER (default postgres) with POSTGRES_PASSWORD, and the database POSTGRES_DB (default
# the user's name); then the server as the user postgres, on 5432 for every address, a password asked over TCP and
# none on the local socket (where pg_isready, the healthcheck, connects).
set -eu
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 0700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
user=${POSTGRES_USER:-postgres}
database=${POSTGRES_DB:-$user}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?is needed for a new database, as the official image needs it}"
  password_file=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$password_file"
  "$bin/initdb" -D "$PGDATA" -U "$user" --pwfile="$password_file" -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$password_file"
  echo 'host all all all scram-sha-256' >>"$PGDATA/pg_hba.conf"
  if [ "$database" != postgres ]; then
    quoted=$(printf '%s' "$database" | sed 's/"/""/g')
    echo "CREATE DATABASE \"$quoted\"" | "$bin/postgres" --single -D "$PGDATA" -j postgres >/dev/null
  fi
  echo "postgres-entrypoint: made the database $database for $user in $PGDATA"
fi
exec "$bin/postgres" -D "$PGDATA" -c listen_addresses='*' "$@"
