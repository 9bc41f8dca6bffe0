# Sourced by the bench/run-* scripts: start a fresh tigerdoc server and a
# private PostgreSQL 15 cluster, each on a free loopback port in a
# temporary directory, and stop them (and remove the directories) on exit.
#
#   bench_servers_init            # once: work dir + exit trap
#   start_tigerdoc BIN CACHE_MB   # sets tigerdoc_pid, tigerdoc_uri
#   start_postgres SHARED_BUFFERS [extra postgres -c settings...]
#                                 # sets pg_pid (postmaster), pg_conninfo
#
# PostgreSQL refuses to run as root: as root the cluster belongs to the
# `postgres` user (runuser), otherwise to the calling user.

pgbin=/usr/lib/postgresql/15/bin

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

bench_servers_init() {
  bench_work=$(mktemp -d /tmp/tigerdoc-bench.XXXXXX)
  chmod 755 "$bench_work"
  tigerdoc_pid="" pg_pid=""
  trap bench_servers_stop EXIT
}

bench_servers_stop() {
  if [[ -n "$tigerdoc_pid" ]]; then
    kill "$tigerdoc_pid" 2>/dev/null && wait "$tigerdoc_pid" 2>/dev/null
    tigerdoc_pid=""
  fi
  if [[ -f "$bench_work/pg/postmaster.pid" ]]; then
    as_pg "$pgbin/pg_ctl" -D "$bench_work/pg" -m fast stop >/dev/null 2>&1
  fi
  pg_pid=""
  rm -rf "$bench_work"
  return 0
}

as_pg() {
  if [[ $(id -u) == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# start_tigerdoc BIN CACHE_MB [server flags...]
start_tigerdoc() {
  local bin=$1 cache=$2
  shift 2
  local port dir
  port=$(free_port)
  dir="$bench_work/tigerdoc.$port"
  "$bin" --port "$port" --bind_ip 127.0.0.1 --dbpath "$dir" --cacheSizeMB "$cache" "$@" \
    >"$dir.log" 2>&1 &
  tigerdoc_pid=$!
  for _ in $(seq 100); do
    # Ready: the "Waiting for connections" log line, or the port answers.
    grep -q "Waiting for connections" "$dir.log" 2>/dev/null && break
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    kill -0 "$tigerdoc_pid" 2>/dev/null || { cat "$dir.log" >&2; return 1; }
    sleep 0.1
  done
  tigerdoc_uri="mongodb://127.0.0.1:$port/?directConnection=true"
}

stop_tigerdoc() {
  [[ -n "$tigerdoc_pid" ]] && kill "$tigerdoc_pid" 2>/dev/null && wait "$tigerdoc_pid" 2>/dev/null
  tigerdoc_pid=""
}

# start_postgres SHARED_BUFFERS [-c name=value ...]: TCP on 127.0.0.1 (as
# tigerdoc's clients use), trust authentication, the socket in the work dir.
start_postgres() {
  local shared_buffers=$1
  shift
  [[ -x $pgbin/postgres ]] || { echo "needs postgresql-15 (apt-get install postgresql-15 libpq-dev)" >&2; return 2; }
  mkdir -p "$bench_work/pg" "$bench_work/sock"
  [[ $(id -u) == 0 ]] && chown postgres "$bench_work/pg" "$bench_work/sock"
  as_pg "$pgbin/initdb" -D "$bench_work/pg" -A trust -U postgres >/dev/null
  local port
  port=$(free_port)
  as_pg "$pgbin/pg_ctl" -D "$bench_work/pg" -l "$bench_work/sock/pg.log" -w \
    -o "-p $port -k $bench_work/sock -c listen_addresses=127.0.0.1 -c shared_buffers=$shared_buffers -c max_wal_size=4GB $*" \
    start >/dev/null
  pg_pid=$(head -1 "$bench_work/pg/postmaster.pid")
  pg_conninfo="host=127.0.0.1 port=$port dbname=postgres user=postgres"
}
