#!/usr/bin/env bash
# Makes sure the services the tests talk to are up: PostgreSQL on 127.0.0.1:5432 and Redis
# on 127.0.0.1:6379. CI machines start them before the run; this restarts one that stopped.
set -euo pipefail

if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "PostgreSQL is not answering; starting it"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
  for _ in $(seq 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "Redis is not answering; starting it"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
  for _ in $(seq 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
fi
# The tests' database (DATABASE_URL's default: postgres://postgres@127.0.0.1:5432/test).
if ! psql -h 127.0.0.1 -U postgres -Atc "SELECT 1 FROM pg_database WHERE datname = 'test'" | grep -q 1; then
  echo "creating the tests' database \`test\`"
  createdb -h 127.0.0.1 -U postgres test
fi
echo "services: postgres $(pg_isready -h 127.0.0.1 -p 5432 | cut -d- -f2), redis $(redis-cli -h 127.0.0.1 ping)"
