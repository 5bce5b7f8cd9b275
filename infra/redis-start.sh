#!/bin/sh
# Starts Redis with redis.conf and the password clients must give, from REDIS_PASSWORD:
#   redis-start.sh [redis.conf] [redis-server options...]
# The password reaches Redis on standard input, so it is neither in a file of the repository
# nor in the process list. Without it Redis would serve only its own host (protected mode)
# and refuse every worker with "DENIED".
# The AOF goes to --dir when the options give it, else to /data (the container's volume);
# redis.conf names no folder, so on a plain host `--dir /var/lib/assay-redis` is enough.
set -eu
conf="${1:-/usr/local/etc/redis/redis.conf}"
if [ "$#" -gt 0 ]; then shift; fi
case "${REDIS_PASSWORD:-}" in
"")
  echo "redis-start.sh: REDIS_PASSWORD is not set: set it to the password Assay's processes will give (e.g. openssl rand -hex 32)" >&2
  exit 1
  ;;
*[!A-Za-z0-9._~-]*)
  # Written as it is into redis.conf's syntax and into URLs, where other characters need quoting.
  echo "redis-start.sh: REDIS_PASSWORD may hold only letters, digits and . _ ~ - (e.g. openssl rand -hex 32)" >&2
  exit 1
  ;;
esac
default_dir=/data
dir_given=no
for option in "$@"; do
  if [ "$option" = --dir ]; then dir_given=yes; fi
done
if [ "$dir_given" = no ]; then
  # Redis would stop at its config with only "No such file or directory"; say what to do.
  if [ ! -d "$default_dir" ]; then
    echo "redis-start.sh: no folder $default_dir for Redis's data: give one with --dir <folder> (e.g. redis-start.sh $conf --dir /var/lib/assay-redis)" >&2
    exit 1
  fi
  set -- --dir "$default_dir" "$@"
fi
exec redis-server "$conf" "$@" - <<EOF
requirepass $REDIS_PASSWORD
EOF
