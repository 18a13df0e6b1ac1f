#!/usr/bin/env bash
# Prints a PostgreSQL URL that answers, for the tests (DESIGN.md §8).
# $DATABASE_URL if set (it must answer); else the local server on 127.0.0.1:5432: started if it is
# installed but stopped, installed with apt-get if missing (needs root and a package mirror), and the
# database of the default URL created if missing. The default URL assumes trust auth for local TCP.
set -euo pipefail

readonly DEFAULT_URL="postgres://postgres@127.0.0.1:5432/test"

fail() {
  echo "provision-postgres: PostgreSQL not available: $*" >&2
  exit 1
}

answers() {
  psql "$1" -Atqc "select 1" >/dev/null 2>&1
}

if [[ -n "${DATABASE_URL:-}" ]]; then
  command -v psql >/dev/null 2>&1 || fail "DATABASE_URL is set but psql (postgresql-client) is not installed to check it."
  answers "$DATABASE_URL" || fail "DATABASE_URL=$DATABASE_URL does not answer (psql 'select 1' failed)."
  echo "$DATABASE_URL"
  exit 0
fi

install_postgres() {
  command -v apt-get >/dev/null 2>&1 || fail "it is not installed and apt-get is missing: install PostgreSQL or set DATABASE_URL."
  [[ "$(id -u)" == 0 ]] || fail "it is not installed and installing it needs root: install PostgreSQL or set DATABASE_URL."
  echo "provision-postgres: installing PostgreSQL with apt-get..." >&2
  { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql; } >&2 \
    || fail "'apt-get install -y postgresql' failed."
}

start_clusters() {
  local version
  for version in $(ls /etc/postgresql); do
    # --skip-systemctl-redirect: containers have no systemd; pg_ctlcluster starts the server itself.
    if ! pg_ctlcluster "$version" main status >/dev/null 2>&1; then
      echo "provision-postgres: starting PostgreSQL $version/main..." >&2
      pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2 \
        || fail "'pg_ctlcluster $version main start' failed (see /var/log/postgresql/postgresql-$version-main.log)."
    fi
  done
}

if [[ ! -d /etc/postgresql ]] || [[ -z "$(ls -A /etc/postgresql 2>/dev/null)" ]]; then
  install_postgres
fi
command -v psql >/dev/null 2>&1 || fail "psql is missing (install postgresql-client)."
start_clusters

readonly ADMIN_URL="postgres://postgres@127.0.0.1:5432/postgres"
for _ in $(seq 1 30); do
  answers "$ADMIN_URL" && break
  sleep 1
done
answers "$ADMIN_URL" || fail "the local server does not answer at $ADMIN_URL (is trust auth set for 127.0.0.1 in pg_hba.conf?)."

if [[ "$(psql "$ADMIN_URL" -Atqc "select 1 from pg_database where datname = 'test'")" != 1 ]]; then
  psql "$ADMIN_URL" -qc "create database test" >&2 || fail "could not create database 'test'."
fi
answers "$DEFAULT_URL" || fail "$DEFAULT_URL does not answer."
echo "$DEFAULT_URL"
