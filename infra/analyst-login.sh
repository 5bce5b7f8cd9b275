#!/bin/sh
# Gives the read-only role assay_analyst (created by `assay migrate`) a login and the
# password in ASSAY_ANALYST_PASSWORD, for Grafana's Postgres data source. Connects with
# libpq's PG* variables. The password is read by psql from its environment (\getenv), so it
# is in no command line and no file.
set -eu
if [ -z "${ASSAY_ANALYST_PASSWORD:-}" ]; then
  echo "analyst-login: ASSAY_ANALYST_PASSWORD is not set: add it to infra/.env (e.g. openssl rand -hex 32); see infra/README.md, Dashboards" >&2
  exit 1
fi
psql -v ON_ERROR_STOP=1 --quiet <<'SQL'
\getenv analyst_password ASSAY_ANALYST_PASSWORD
ALTER ROLE assay_analyst WITH LOGIN PASSWORD :'analyst_password';
SQL
echo "analyst-login: assay_analyst may log in"
