#!/usr/bin/env bash
# Read benchmark of the HTTP API on a large demo dataset.
#
#   bash bench/read.sh [--db sqlite|postgres] [--workers N] [--keep-db | --rebuild] [--duration S]
#                      [--skip-uncached] [--cpu-prof]
#
# 1. builds (or reuses) a database with the `demo` command: 2,000 users, 1,000,000 openings,
#    200 projects, 500 events, 300 meetings — a SQLite file in bench/out/ (the default), or with
#    --db postgres the PostgreSQL database hackerspace_bench (see below);
# 2. starts `hackerspace-api serve` and times the first answered request (3 starts, median);
# 3. measures req/s and p99 latency with wrk for the first page of every collection, /api/,
#    and /api/space/openings/?page=5000; times single page-5000 requests;
# 4. reads the server's peak RSS (VmHWM; with --workers, the sum over the primary and workers);
# 5. measures the ceiling of every route: a bare node:http server (bench/ceiling.js) answering
#    a precomputed buffer of the same size — the route's own body bytes and headers — with the
#    same wrk settings (the ceiling for Node on this machine; with --workers N, N node:cluster
#    workers, like the service);
# 6. prints a Markdown report and writes it to bench/out/read-<date>-<engine>[-w<N>].md.
#
# wrk asks for the same URL over and over, which the service's response cache answers from
# memory; so when the service has one (RESPONSE_CACHE_MB), steps 2-4 run twice: with the
# default configuration, and with RESPONSE_CACHE_MB=0 (what a request for a page nobody asked
# for since the last write costs). Both must send the same bytes.
#
# Options:
#   --db ENGINE    sqlite (default) or postgres. PostgreSQL: the database named by
#                  BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/hackerspace_bench)
#                  is created if missing (never dropped) and filled with `demo … --replace`, then
#                  vacuumed (VACUUM FULL, then VACUUM (FREEZE, ANALYZE): statistics, visibility
#                  map, no dead rows — the state autovacuum brings a production database to). A
#                  marker file in bench/out/ (like the SQLite file's .meta) records the demo
#                  arguments, row counts, the database's oid and its data_version: the database
#                  is reused only while all of them still match (any write, or a drop and create,
#                  means a rebuild). One database holds one dataset size at a time.
#   --workers N    start the service as `serve --workers N` (node:cluster: a primary and N
#                  workers), and the ceiling as N workers too. RSS is then the sum of the peaks
#                  of all those processes. wrk takes a core of its own: on a small machine the
#                  workers compete with it (and with PostgreSQL) for the CPU.
#   --keep-db      use the cached database as it is, without checking its sizes (never build)
#   --rebuild      build the database again even if the cached one has the right sizes
#   --duration S   seconds of measurement per URL (default 5; each URL also gets 1 s of warm-up)
#   --skip-uncached  measure only the default configuration (about a third less time)
#   --cpu-prof     run the benchmarked servers under `node --cpu-prof` and print where their CPU
#                  time went (the profiler slows the servers: numbers from such a run are not
#                  comparable to others)
#
# Environment (optional): BENCH_USERS, BENCH_OPENINGS, BENCH_PROJECTS, BENCH_EVENTS,
# BENCH_MEETINGS change the dataset (each size gets its own cached SQLite file; PostgreSQL has
# one database, rebuilt when the size changes); BENCH_POSTGRES_URL the PostgreSQL database;
# WRK_THREADS (1) and WRK_CONNECTIONS (32) change the load. wrk runs on one thread so the server
# keeps a core.
#
# Exit status: 0 when everything was measured and every target met; 1 on any failure (a command
# failed, a URL did not answer 200, the server died…); 3 when the measurements completed but a
# target was missed (startup < 1000 ms, page 5000 < 100 ms (with the cache off when measured),
# peak RSS < 250 MB — with --workers, for the sum over all the service's processes).
set -Eeuo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
SCRIPT_NAME=read.sh
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"   # log, die, rel, safe_url, stop_pid
OUT="$BENCH_DIR/out"
cd "$ROOT"

# ---------------------------------------------------------------------------------------------
# Options

DB_MODE=auto   # auto | keep | rebuild
ENGINE=sqlite  # sqlite | postgres
WORKERS=""     # empty: `serve` as one process
DURATION=5
CPU_PROF=0
UNCACHED=1

usage() { sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --db)
      [[ $# -ge 2 ]] || { echo "read.sh: --db needs a value (sqlite or postgres)" >&2; exit 2; }
      ENGINE=$2; shift ;;
    --db=*) ENGINE=${1#*=} ;;
    --workers)
      [[ $# -ge 2 ]] || { echo "read.sh: --workers needs a value" >&2; exit 2; }
      WORKERS=$2; shift ;;
    --workers=*) WORKERS=${1#*=} ;;
    --keep-db) DB_MODE=keep ;;
    --rebuild) DB_MODE=rebuild ;;
    --duration)
      [[ $# -ge 2 ]] || { echo "read.sh: --duration needs a value" >&2; exit 2; }
      DURATION=$2; shift ;;
    --duration=*) DURATION=${1#*=} ;;
    --cpu-prof) CPU_PROF=1 ;;
    --skip-uncached) UNCACHED=0 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "read.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ "$DURATION" =~ ^[1-9][0-9]*$ ]] || { echo "read.sh: --duration expects whole seconds ≥ 1, got '$DURATION'" >&2; exit 2; }
case "$ENGINE" in
  sqlite|postgres) ;;
  postgresql|pg) ENGINE=postgres ;;
  *) echo "read.sh: --db expects sqlite or postgres, got '$ENGINE'" >&2; exit 2 ;;
esac
[[ -z "$WORKERS" || "$WORKERS" =~ ^[1-9][0-9]*$ ]] || { echo "read.sh: --workers expects a whole number ≥ 1, got '$WORKERS'" >&2; exit 2; }

USERS=${BENCH_USERS:-2000}
OPENINGS=${BENCH_OPENINGS:-1000000}
PROJECTS=${BENCH_PROJECTS:-200}
EVENTS=${BENCH_EVENTS:-500}
MEETINGS=${BENCH_MEETINGS:-300}
THREADS=${WRK_THREADS:-1}
CONNECTIONS=${WRK_CONNECTIONS:-32}
for v in USERS OPENINGS PROJECTS EVENTS MEETINGS THREADS CONNECTIONS; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || { echo "read.sh: $v must be a whole number, got '${!v}'" >&2; exit 2; }
done

DEEP_PAGE=5000
DEEP_ROUTE="/api/space/openings/?page=$DEEP_PAGE"
ROUTES=(/api/users/ /api/space/openings/ /api/projects/ /api/meetings/ /api/events/ /api/ "$DEEP_ROUTE")
TARGET_STARTUP_MS=1000
TARGET_DEEP_MS=100
TARGET_RSS_MB=250

SCRIPT_T0=${EPOCHREALTIME/,/.}
mkdir -p "$OUT"
STAMP=$(date +%Y-%m-%d-%H%M%S)
WORK="$OUT/run-$STAMP"          # this run's logs, wrk outputs, bodies
mkdir -p "$WORK"
PG_URL=${BENCH_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/hackerspace_bench}
if [[ $ENGINE == sqlite ]]; then
  DB="$OUT/read-u$USERS-o$OPENINGS-p$PROJECTS-e$EVENTS-m$MEETINGS.sqlite"
  DB_URL="sqlite:$DB"             # the service's DATABASE_URL
  META="$DB.meta"                 # written only after a successful build: build time, counts
else
  [[ "$PG_URL" =~ ^postgres(ql)?://[^/]+/[^/?]+$ ]] \
    || { echo "read.sh: BENCH_POSTGRES_URL must look like postgres://user@host:port/database, got '$(safe_url "$PG_URL")'" >&2; exit 2; }
  DB="$PG_URL"
  DB_URL="$PG_URL"
  pg_slug=$(sed -E 's#^[a-z]+://([^@/]*@)?##; s#[^A-Za-z0-9_.-]+#-#g' <<<"$PG_URL")
  META="$OUT/read-postgres-$pg_slug.meta"   # the marker: see --db
fi
RUN_NAME=$ENGINE${WORKERS:+-w$WORKERS}
REPORT="$OUT/read-$STAMP-$RUN_NAME.md"

# ---------------------------------------------------------------------------------------------
# Logging, failure, cleanup

PIDS=()   # the background processes this script started and has not stopped yet


cleanup() {
  local rc=$? pid
  trap - EXIT INT TERM
  for pid in "${PIDS[@]}"; do stop_pid "$pid"; done
  if [[ $rc -ne 0 && $rc -ne 3 ]]; then
    printf 'read.sh: exit status %s; logs in %s\n' "$rc" "$(rel "$WORK")" >&2
  fi
  exit "$rc"
}
trap cleanup EXIT
# A command that fails outside an explicit check still says what and where.
trap 'printf "read.sh: FAILED: line %s: %s (status %s)\n" "$LINENO" "$BASH_COMMAND" "$?" >&2' ERR
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------------------------
# Tools and small helpers

ensure_wrk() {
  command -v wrk >/dev/null 2>&1 && return 0
  if [[ $EUID -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    log "wrk is missing; installing it with apt-get"
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y wrk >"$WORK/apt.log" 2>&1; then
      DEBIAN_FRONTEND=noninteractive apt-get update >>"$WORK/apt.log" 2>&1 || true
      DEBIAN_FRONTEND=noninteractive apt-get install -y wrk >>"$WORK/apt.log" 2>&1 \
        || die "could not install wrk with apt-get (see $(rel "$WORK")/apt.log)"
    fi
    command -v wrk >/dev/null 2>&1 || die "apt-get installed wrk but it is not on PATH"
  else
    die "wrk is not installed. Install it (e.g. 'sudo apt-get install wrk', or build it from https://github.com/wg/wrk), or run this script as root to let it install wrk."
  fi
}

for tool in node curl awk; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is required but not on PATH"
done
ensure_wrk
[[ -f "$ROOT/bin/hackerspace-api.js" ]] || die "bin/hackerspace-api.js not found under $ROOT"

now_ms() { local t=${EPOCHREALTIME/,/.}; echo $(( ${t%.*} * 1000 + 10#${t#*.} / 1000 )); }

# Median of numbers given one per line on stdin.
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) exit 1; if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

free_port() { node "$BENCH_DIR/util.js" free-port || die "could not find a free port"; }

git_rev() {
  local rev
  rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) || { echo unknown; return; }
  [[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]] || rev="$rev+changes"
  echo "$rev"
}

# The configuration variables the server reads, other than the ones set here, are removed so
# that a developer's environment (PAGE_SIZE, PUBLIC_URL…) cannot change what is measured: the
# ones src/config.ts reads today, and the ones it read when this script was written.
SERVER_ENV_UNSET=()
for v in $(grep -oE "env\.[A-Z_]+|env, '[A-Z_]+'" "$ROOT/src/config.ts" 2>/dev/null | grep -oE '[A-Z][A-Z_]+' || true) \
         PUBLIC_URL TRUST_PROXY TIME_ZONE PAGE_SIZE MAX_PAGE_SIZE AVATAR_FIELD AVATAR_HASH AVATAR_DEFAULT RESPONSE_CACHE_MB; do
  case "$v" in DATABASE_URL|HOST|PORT|LOG_LEVEL) ;; *) SERVER_ENV_UNSET+=(-u "$v") ;; esac
done

# ---------------------------------------------------------------------------------------------
# The program under test. bin/hackerspace-api.js runs dist/hackerspace-api.mjs when that bundle
# is at least as new as every file under src/, and the sources through tsx otherwise; startup
# differs a lot, so the report says which one (judged the same way, from modification times).
# When it is the bundle, this run uses a copy of it taken now (run directly, as the wrapper
# would import it), so that an edit under src/ or a new build during the run changes neither
# which program nor which version the later servers run.

cli_entry() {
  if [[ ! -f "$ROOT/dist/hackerspace-api.mjs" ]]; then
    echo "TypeScript sources through tsx (no dist/ bundle)"
  elif [[ -n "$(find "$ROOT/src" -type f -newer "$ROOT/dist/hackerspace-api.mjs" -print -quit)" ]]; then
    echo "TypeScript sources through tsx (dist/ bundle older than src/)"
  else
    echo "dist/hackerspace-api.mjs bundle"
  fi
}
CLI_ENTRY=$(cli_entry)
if [[ $CLI_ENTRY == dist/* ]]; then
  # Next to the run's other files; better-sqlite3 is still found in $ROOT/node_modules.
  CLI="$WORK/hackerspace-api.mjs"
  cp "$ROOT/dist/hackerspace-api.mjs" "$CLI"
  CLI_ENTRY="$CLI_ENTRY (a copy taken when the run started: $(sha256sum "$CLI" | cut -c1-12))"
else
  CLI="$ROOT/bin/hackerspace-api.js"
fi
log "the CLI will run: $CLI_ENTRY"
[[ $CLI_ENTRY == dist/* ]] || log "note: run \`npm run build\` first to measure the bundle (what \`npm start\` runs)"

# ---------------------------------------------------------------------------------------------
# 1. The dataset

db_counts() { node "$BENCH_DIR/util.js" db-counts "$DB"; }
# PostgreSQL only: "<database oid> <data_version> <server version>"; any write or a new database
# changes it.
pg_state() { node "$BENCH_DIR/util.js" pg-state "$DB"; }
count_of() { local json=$1 key=$2; [[ "$json" =~ \"$key\":([0-9]+) ]] && echo "${BASH_REMATCH[1]}"; }
meta_field() { [[ -f "$META" ]] || return 0; sed -n "s/^$1=//p" "$META" | head -n 1; }
# SQLite: the file goes. PostgreSQL: the database is never dropped (the URL may name one that is
# not ours); without its marker it is rebuilt (`demo --replace`) next time.
remove_db() {
  if [[ $ENGINE == sqlite ]]; then rm -f "$DB" "$DB-wal" "$DB-shm" "$DB-journal" "$META"; else rm -f "$META"; fi
}

DEMO_ARGS=(--users "$USERS" --openings "$OPENINGS" --projects "$PROJECTS" --events "$EVENTS" --meetings "$MEETINGS" --replace)
DB_COUNTS=""
BUILD_NOTE=""

seconds_since() { awk -v ms=$(($(now_ms) - $1)) 'BEGIN { printf "%.1f", ms / 1000 }'; }

build_db() {
  remove_db
  local t0 pid rc=0 build_s k want got vacuum_s="" state="" created
  if [[ $ENGINE == postgres ]]; then
    created=$(node "$BENCH_DIR/util.js" pg-create-db "$DB" 2>"$WORK/pg-create-db.log") \
      || { cat "$WORK/pg-create-db.log" >&2; die "could not reach PostgreSQL or create the database of $(safe_url "$DB") (is the server running?)"; }
    log "PostgreSQL database $(safe_url "$DB"): $created"
  fi
  log "building the dataset with: hackerspace-api demo ${DEMO_ARGS[*]}"
  t0=$(now_ms)
  # In the background so that cleanup stops it on Ctrl-C or SIGTERM.
  env "${SERVER_ENV_UNSET[@]}" DATABASE_URL="$DB_URL" LOG_LEVEL=warn \
    node "$CLI" demo "${DEMO_ARGS[@]}" >"$WORK/demo.log" 2>&1 &
  pid=$!; PIDS+=("$pid")
  wait "$pid" || rc=$?
  stop_pid "$pid"
  build_s=$(seconds_since "$t0")
  if [[ $rc -ne 0 ]]; then
    sed 's/^/    demo: /' "$WORK/demo.log" | tail -n 20 >&2
    remove_db
    die "the demo command failed (exit $rc) — is it implemented? (src/cli/demo.ts)"
  fi
  DB_COUNTS=$(db_counts) || die "could not count the rows of the new database"
  if [[ "$(count_of "$DB_COUNTS" users)" != "$USERS" || "$(count_of "$DB_COUNTS" openings)" != "$OPENINGS" ]]; then
    remove_db
    die "demo built the wrong number of users or openings; expected $USERS and $OPENINGS ($DB_COUNTS)"
  fi
  for k in projects events meetings; do
    want=${k^^}; want=${!want}; got=$(count_of "$DB_COUNTS" "$k")
    [[ "$got" == "$want" ]] || log "note: demo built $got $k (asked for $want)"
  done
  log "dataset built in $build_s s: $DB_COUNTS"
  if [[ $ENGINE == postgres ]]; then
    # A bulk load leaves no statistics and no visibility map (and, after --replace, the deleted
    # rows' dead tuples) until autovacuum comes by: measure a settled database instead. Without
    # the visibility map, the index-only scan behind a deep page visits the table for every row
    # it skips (page 5000: about 3 times slower).
    log "VACUUM FULL, then VACUUM (FREEZE, ANALYZE) of the database"
    t0=$(now_ms)
    node "$BENCH_DIR/util.js" pg-vacuum "$DB" >"$WORK/pg-vacuum.log" 2>&1 \
      || { cat "$WORK/pg-vacuum.log" >&2; die "VACUUM of $(safe_url "$DB") failed"; }
    vacuum_s=$(seconds_since "$t0")
    state=$(pg_state) || die "could not read the state of $(safe_url "$DB")"
    log "vacuumed in $vacuum_s s"
  fi
  printf 'args=%s\ncounts=%s\nbuild_s=%s\nvacuum_s=%s\nstate=%s\nurl=%s\nbuilt_at=%s\ncommit=%s\n' \
    "${DEMO_ARGS[*]}" "$DB_COUNTS" "$build_s" "$vacuum_s" "$state" "$(safe_url "$DB")" \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(git_rev)" >"$META"
  [[ $ENGINE == sqlite ]] || echo "prepared=$PG_PREPARED" >>"$META"
  BUILD_NOTE="built in $build_s s${vacuum_s:+, then vacuumed in $vacuum_s s} (this run)"
}

# How the cached dataset was built, from its marker.
built_note() {
  local vacuum_s; vacuum_s=$(meta_field vacuum_s)
  echo "built in $(meta_field build_s) s${vacuum_s:+ + VACUUM $vacuum_s s} on $(meta_field built_at)"
}

# The PostgreSQL database is the one the marker describes: no write since, not recreated, and
# prepared the way this script prepares it.
PG_PREPARED="vacuum-full+vacuum-freeze-analyze"
pg_state_matches() {
  [[ $ENGINE == sqlite ]] && return 0
  local state; state=$(pg_state 2>/dev/null) || return 1
  [[ -n "$state" && "$state" == "$(meta_field state)" && "$(meta_field prepared)" == "$PG_PREPARED" ]]
}

case "$DB_MODE" in
  rebuild) build_db ;;
  keep)
    [[ $ENGINE == postgres || -f "$DB" ]] || die "--keep-db: there is no cached database at $(rel "$DB"); run without --keep-db to build it"
    DB_COUNTS=$(db_counts) || die "--keep-db: cannot read $(safe_url "$(rel "$DB")")"
    BUILD_NOTE="reused as is (--keep-db)$([[ -z "$(meta_field build_s)" ]] || echo "; $(built_note)")"
    log "using the cached database as is: $DB_COUNTS"
    ;;
  auto)
    if [[ ( $ENGINE == postgres || -f "$DB" ) && -f "$META" && "$(meta_field args)" == "${DEMO_ARGS[*]}" ]] \
       && pg_state_matches \
       && DB_COUNTS=$(db_counts 2>/dev/null) && [[ "$DB_COUNTS" == "$(meta_field counts)" ]]; then
      BUILD_NOTE="reused the cached database ($(built_note); --rebuild to time a new build)"
      log "reusing the cached database: $DB_COUNTS"
    else
      build_db
    fi
    ;;
esac

# ---------------------------------------------------------------------------------------------
# The machine should be quiet: anything else running takes CPU from the server or from wrk.

# busy_pct: how busy all CPUs were (in %) over one second, while this script does nothing.
busy_pct() {
  local a b
  a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat 2>/dev/null) || { echo '?'; return; }
  sleep 1
  b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat 2>/dev/null) || { echo '?'; return; }
  awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " "); busy = y[1] - x[1]; all = busy + y[2] - x[2]
    printf "%.0f", (all > 0) ? 100 * busy / all : 0 }'
}
IDLE_CHECKS=()
NOISY=0
check_idle() {
  local pct; pct=$(busy_pct)
  IDLE_CHECKS+=("$1: $pct%")
  if [[ "$pct" != '?' && "$pct" -gt 15 ]]; then
    log "WARNING: the CPUs were $pct% busy $1 with nothing of this script running: other processes are competing, results will be noisy"
    NOISY=1
  fi
}

SERVE_ARGS=(serve)
if [[ -n "$WORKERS" ]]; then
  node "$CLI" serve --help 2>&1 | grep -q -- '--workers' \
    || die "--workers: \`hackerspace-api serve --help\` does not list a --workers option (not implemented in this version?)"
  SERVE_ARGS+=(--workers "$WORKERS")
fi
log "the service runs as: hackerspace-api ${SERVE_ARGS[*]} on $(safe_url "$(rel "$DB_URL")")"
check_idle "before the first server starts"

# ---------------------------------------------------------------------------------------------
# 2. Servers and their startup time

# http_code URL [OUTPUT-FILE [HEADERS-FILE]]: the status code, 000 when nothing answered.
http_code() {
  curl -sS -o "${2:-/dev/null}" -D "${3:-/dev/null}" -w '%{http_code}' --max-time 10 "$1" 2>/dev/null || true
}

# wait_for_200 URL PID LOG TIMEOUT-S: polls URL until it answers 200; fails if PID exits first.
wait_for_200() {
  local url=$1 pid=$2 log_file=$3 deadline=$(( $(now_ms) + $4 * 1000 )) code
  while code=$(http_code "$url"); [[ "$code" != 200 ]]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      sed 's/^/    log: /' "$log_file" | tail -n 20 >&2
      die "the process behind $url exited during startup (log: $(rel "$log_file"))"
    fi
    (( $(now_ms) < deadline )) || die "$url did not answer 200 within $4 s (last status $code; log: $(rel "$log_file"))"
    sleep 0.005
  done
}

SERVER_PID=""
SERVER_PORT=""
SERVER_LOG=""
STARTUP_MS=""
SERVER_WORKER_PIDS=()   # with --workers: the primary's child processes

children_of() {
  local pid=$1
  if compgen -G "/proc/$pid/task/*/children" >/dev/null; then
    cat /proc/"$pid"/task/*/children 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+$' || true
  else
    ps -o pid= --ppid "$pid" 2>/dev/null | tr -d ' ' || true
  fi
}

# wait_for_workers PID N LOG: waits (30 s at most) until the primary PID has N child processes,
# and sets SERVER_WORKER_PIDS.
wait_for_workers() {
  local pid=$1 n=$2 log_file=$3 deadline=$(( $(now_ms) + 30000 )) kids
  while :; do
    kill -0 "$pid" 2>/dev/null || die "the primary (pid $pid) exited while its workers started (log: $(rel "$log_file"))"
    mapfile -t kids < <(children_of "$pid")
    [[ ${#kids[@]} -lt $n ]] || break
    (( $(now_ms) < deadline )) || die "serve --workers $n: only ${#kids[@]} worker processes after 30 s (log: $(rel "$log_file"))"
    sleep 0.05
  done
  [[ ${#kids[@]} -eq $n ]] || log "note: the primary has ${#kids[@]} child processes (asked for $n workers); all are counted"
  SERVER_WORKER_PIDS=("${kids[@]}")
  PIDS+=("${kids[@]}")   # stopped after the primary, should they outlive it
}

# stop_server: the primary first (it stops its workers), then any worker still there.
stop_server() {
  local pid
  stop_pid "$SERVER_PID"
  for pid in "${SERVER_WORKER_PIDS[@]}"; do stop_pid "$pid"; done
  SERVER_WORKER_PIDS=()
}

# start_server NAME EXTRA-ENV [NODE FLAGS...]: starts it, waits for /api/ to answer 200 and
# sets STARTUP_MS (from just before the process is created to the end of that first answer:
# with --workers, the first worker that answers). With --workers, then waits for all workers.
start_server() {
  local name=$1 extra_env=$2 t0; shift 2
  SERVER_PORT=$(free_port)
  SERVER_LOG="$WORK/$name.log"
  t0=$(now_ms)
  # shellcheck disable=SC2086 # extra_env is empty or one NAME=value word
  env "${SERVER_ENV_UNSET[@]}" $extra_env DATABASE_URL="$DB_URL" HOST=127.0.0.1 PORT="$SERVER_PORT" LOG_LEVEL=warn \
    node "$@" "$CLI" "${SERVE_ARGS[@]}" >"$SERVER_LOG" 2>&1 &
  SERVER_PID=$!; PIDS+=("$SERVER_PID")
  wait_for_200 "http://127.0.0.1:$SERVER_PORT/api/" "$SERVER_PID" "$SERVER_LOG" 30
  STARTUP_MS=$(( $(now_ms) - t0 ))
  SERVER_WORKER_PIDS=()
  [[ -z "$WORKERS" ]] || wait_for_workers "$SERVER_PID" "$WORKERS" "$SERVER_LOG"
}

# Two throw-away starts; the third server (the first pass's) makes the median of three.
STARTUPS=()
for i in 1 2; do
  start_server "startup-$i" ""
  STARTUPS+=("$STARTUP_MS")
  log "startup $i: $STARTUP_MS ms to the first 200 on /api/"
  stop_server
done

# ---------------------------------------------------------------------------------------------
# 3. Measurements, once per configuration ("pass"); results keyed "pass|route"

slug() { local s=${1//[^a-zA-Z0-9]/_}; echo "${s#_}"; }
body_file() { echo "$WORK/body-$1-$(slug "$2").json"; }   # body_file PASS ROUTE

# check_url URL BODY-FILE: GET it, saving the body (and its headers in BODY-FILE.headers).
check_url() {
  local url=$1 body=$2 code
  code=$(http_code "$url" "$body" "$body.headers")
  if [[ "$code" != 200 ]]; then
    head -c 500 "$body" 2>/dev/null | sed 's/^/    body: /' >&2 || true
    die "GET $url answered ${code/#000/nothing} instead of 200"
  fi
  [[ -s "$body" && "$(head -c 1 "$body")" == "{" ]] || die "GET $url answered 200 but not with a JSON object"
}

# to_ms "12.34ms" → 12.34 (wrk prints us, ms, s or m)
to_ms() {
  awk -v v="$1" 'BEGIN {
    if (match(v, /^[0-9.]+/)) { n = substr(v, 1, RLENGTH); u = substr(v, RLENGTH + 1) } else exit 1
    f = (u == "us") ? 0.001 : (u == "ms") ? 1 : (u == "s") ? 1000 : (u == "m") ? 60000 : -1
    if (f < 0) exit 1
    printf "%.2f", n * f }'
}

declare -A RPS P99 ERRORS

# alive PID...: every one of them still runs.
alive() { local p; for p in "$@"; do kill -0 "$p" 2>/dev/null || return 1; done; }

# bench_url KEY URL PID...: warm-up, measurement, parse; fails on non-2xx answers or when one of
# the processes under test (the server, and its workers) died.
bench_url() {
  local key=$1 url=$2 file f bad rps p99; shift 2
  file="$WORK/wrk-$(slug "$key").txt"
  wrk -t"$THREADS" -c"$CONNECTIONS" -d1s --timeout 10s "$url" >"$file.warmup" 2>&1 \
    || { cat "$file.warmup" >&2; die "wrk (warm-up) failed on $url"; }
  # The server still works through the requests wrk abandoned at the end of the warm-up; one
  # request of our own queues behind them, so the measurement starts with an idle server.
  alive "$@" || die "a process under test died during the warm-up on $url"
  [[ "$(http_code "$url")" == 200 ]] || die "$url stopped answering 200 after the warm-up"
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s --latency "$url" >"$file" 2>&1 \
    || { cat "$file" >&2; die "wrk failed on $url"; }
  alive "$@" || die "a process under test died during the run on $url"
  for f in "$file.warmup" "$file"; do
    bad=$(sed -n 's/^ *Non-2xx or 3xx responses: *//p' "$f")
    [[ -z "$bad" ]] || { cat "$f" >&2; die "$url: $bad answers were not 2xx/3xx under load"; }
  done
  rps=$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$file")
  p99=$(awk '/^ +99%/ { print $2 }' "$file")
  [[ -n "$rps" && -n "$p99" ]] || { cat "$file" >&2; die "could not read wrk's output for $url"; }
  [[ "$rps" -gt 0 ]] || { cat "$file" >&2; die "$url: no request completed in $DURATION s (server stuck, or the machine far too busy)"; }
  RPS[$key]=$rps
  P99[$key]=$(to_ms "$p99") || die "unexpected latency '$p99' from wrk for $url"
  ERRORS[$key]=$(sed -n 's/^ *Socket errors: *//p' "$file")
  log "$(printf '%-44s %8s req/s   p99 %8s ms%s' "$key" "${RPS[$key]}" "${P99[$key]}" "${ERRORS[$key]:+   socket errors: ${ERRORS[$key]}}")"
}

# Absolute links in bodies name the server's port; this makes bodies of two servers comparable.
normalized() { sed "s/127\\.0\\.0\\.1:$2/127.0.0.1:PORT/g" "$1"; }

PASSES=(default)
declare -A PASS_ENV PASS_TITLE PROF_DIRS DEEP DEEP_MEDIAN RSS RSS_PARTS
PASS_ENV[default]=""
PASS_TITLE[default]="default configuration"
if [[ $UNCACHED -eq 1 ]] && grep -q RESPONSE_CACHE_MB "$ROOT/src/config.ts" 2>/dev/null; then
  PASSES+=(nocache)
  PASS_ENV[nocache]="RESPONSE_CACHE_MB=0"
  PASS_TITLE[nocache]="response cache off (RESPONSE_CACHE_MB=0)"
fi
DEFAULT_PORT=""
declare -A BYTES   # per route, from the default pass

for pass in "${PASSES[@]}"; do
  flags=()
  if [[ $CPU_PROF -eq 1 ]]; then
    PROF_DIRS[$pass]="$WORK/cpu-prof-$pass"; mkdir -p "${PROF_DIRS[$pass]}"
    flags=(--cpu-prof --cpu-prof-dir="${PROF_DIRS[$pass]}")
  fi
  log "pass '$pass': ${PASS_TITLE[$pass]}"
  start_server "server-$pass" "${PASS_ENV[$pass]}" "${flags[@]}"
  if [[ $pass == default ]]; then
    STARTUPS+=("$STARTUP_MS")
    DEFAULT_PORT=$SERVER_PORT
    log "startup 3: $STARTUP_MS ms (pid $SERVER_PID${WORKERS:+, workers ${SERVER_WORKER_PIDS[*]}}, port $SERVER_PORT)"
  else
    log "startup: $STARTUP_MS ms (pid $SERVER_PID${WORKERS:+, workers ${SERVER_WORKER_PIDS[*]}}, port $SERVER_PORT)"
  fi
  base="http://127.0.0.1:$SERVER_PORT"

  # Every URL answers 200 with JSON, and the same bytes in every pass, before anything is
  # measured. The default pass's bodies and headers are what the ceiling sends.
  for route in "${ROUTES[@]}"; do
    body=$(body_file "$pass" "$route")
    check_url "$base$route" "$body"
    if [[ $pass == default ]]; then
      BYTES[$route]=$(wc -c <"$body" | tr -d ' ')
    else
      first=$(body_file default "$route")
      cmp -s <(normalized "$first" "$DEFAULT_PORT") <(normalized "$body" "$SERVER_PORT") \
        || die "GET $route sends different bytes in pass '$pass' than in pass 'default' (compare $(basename "$first") and $(basename "$body") in $(rel "$WORK"))"
    fi
  done
  openings_body=$(body_file "$pass" /api/space/openings/)
  grep -q '"count":'"$OPENINGS"'[,}]' "$openings_body" \
    || die "/api/space/openings/ does not report count $OPENINGS: $(head -c 200 "$openings_body")"
  log "all ${#ROUTES[@]} URLs answer 200; the openings first page is ${BYTES[/api/space/openings/]} bytes"

  # Single requests to the deep page, one after the other, each on a new connection (curl's
  # own start-up is not counted: time_total starts when curl starts resolving the name). With
  # the cache on, the check above already asked for this page: these are cache hits.
  times=()
  for i in $(seq 1 20); do
    t=$(curl -sS -o /dev/null -w '%{http_code} %{time_total}' --max-time 30 "$base$DEEP_ROUTE") \
      || die "GET $base$DEEP_ROUTE failed"
    [[ "${t%% *}" == 200 ]] || die "GET $base$DEEP_ROUTE answered ${t%% *}"
    times+=("$(awk -v s="${t#* }" 'BEGIN { printf "%.2f", s * 1000 }')")
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -g)
  DEEP_MEDIAN[$pass]=$(median <<<"$sorted")
  DEEP[$pass]="${DEEP_MEDIAN[$pass]} ms median of 20 sequential (min $(head -n 1 <<<"$sorted"), max $(tail -n 1 <<<"$sorted") ms)"
  log "page $DEEP_PAGE single requests: ${DEEP[$pass]}"

  log "wrk -t$THREADS -c$CONNECTIONS: 1 s warm-up + $DURATION s per URL, ${#ROUTES[@]} URLs"
  for route in "${ROUTES[@]}"; do
    bench_url "$pass|$route" "$base$route" "$SERVER_PID" "${SERVER_WORKER_PIDS[@]}"
  done

  # 4. Peak RSS of the server (before stopping it); with workers, the sum of every process's
  # own peak (they need not peak at the same moment: an upper bound of the whole's peak).
  total_kb=0; parts=()
  for p in "$SERVER_PID" "${SERVER_WORKER_PIDS[@]}"; do
    hwm_kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$p/status" 2>/dev/null || true)
    [[ -n "$hwm_kb" ]] || die "could not read VmHWM of the server process $p"
    total_kb=$((total_kb + hwm_kb))
    parts+=("$(awk -v kb="$hwm_kb" 'BEGIN { printf "%.1f", kb / 1024 }')")
  done
  RSS[$pass]=$(awk -v kb="$total_kb" 'BEGIN { printf "%.1f", kb / 1024 }')
  if [[ -n "$WORKERS" ]]; then
    RSS_PARTS[$pass]="primary ${parts[0]} + workers $(IFS=+; echo "${parts[*]:1}" | sed 's/+/ + /g') MB"
    log "server peak RSS (VmHWM, summed): ${RSS[$pass]} MB (${RSS_PARTS[$pass]})"
  else
    log "server peak RSS (VmHWM): ${RSS[$pass]} MB"
  fi
  [[ ! -s "$SERVER_LOG" ]] || log "note: the server wrote to its log (LOG_LEVEL=warn): $(rel "$SERVER_LOG")"
  stop_server
done

# ---------------------------------------------------------------------------------------------
# 5. The ceilings: one node:http process sending each route's body and headers (from the
# default pass) at /r/<index of the route>, measured exactly like the route.

check_idle "between the API and the ceiling"
ceiling_bodies=()
for route in "${ROUTES[@]}"; do ceiling_bodies+=("$(body_file default "$route")"); done
port=$(free_port)
node "$BENCH_DIR/ceiling.js" ${WORKERS:+--workers "$WORKERS"} "$port" "${ceiling_bodies[@]}" >"$WORK/ceiling.log" 2>&1 &
CEILING_PID=$!; PIDS+=("$CEILING_PID")
wait_for_200 "http://127.0.0.1:$port/r/0" "$CEILING_PID" "$WORK/ceiling.log" 10
CEILING_WORKER_PIDS=()
if [[ -n "$WORKERS" ]]; then
  wait_for_workers "$CEILING_PID" "$WORKERS" "$WORK/ceiling.log"
  CEILING_WORKER_PIDS=("${SERVER_WORKER_PIDS[@]}"); SERVER_WORKER_PIDS=()
fi
log "ceiling: node:http on port $port${WORKERS:+ ($WORKERS node:cluster workers)}, one precomputed response per route"
for i in "${!ROUTES[@]}"; do
  url="http://127.0.0.1:$port/r/$i"
  check_url "$url" "$WORK/ceiling-$i.json"
  cmp -s "$WORK/ceiling-$i.json" "${ceiling_bodies[$i]}" || die "the ceiling at $url does not send the bytes of ${ROUTES[$i]}"
  bench_url "ceiling|${ROUTES[$i]}" "$url" "$CEILING_PID" "${CEILING_WORKER_PIDS[@]}"
done
stop_pid "$CEILING_PID"
for p in "${CEILING_WORKER_PIDS[@]}"; do stop_pid "$p"; done

# ---------------------------------------------------------------------------------------------
# 6. Report

STARTUP_MEDIAN=$(printf '%s\n' "${STARTUPS[@]}" | median)
# The page-5000 target is judged on real work: the cache-off pass when there is one.
TARGET_PASS=${PASSES[-1]}
RSS_MAX=$(printf '%s\n' "${RSS[@]}" | sort -g | tail -n 1)
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v < t) ? "ok" : "MISSED" }'; }
STARTUP_OK=$(verdict "$STARTUP_MEDIAN" "$TARGET_STARTUP_MS")
DEEP_OK=$(verdict "${DEEP_MEDIAN[$TARGET_PASS]}" "$TARGET_DEEP_MS")
RSS_OK=$(verdict "$RSS_MAX" "$TARGET_RSS_MB")
if [[ -n "$WORKERS" ]]; then
  RSS_HOW=" (VmHWM summed over the primary and its $WORKERS workers, each process's own peak — they need not peak together: an upper bound; after all their runs)"
else
  RSS_HOW=" (VmHWM, after all its runs)"
fi
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
if [[ $ENGINE == sqlite ]]; then
  ENGINE_NAME=SQLite
  DB_DESC="SQLite, \`$(rel "$DB")\` ($(awk -v b="$(stat -c %s "$DB")" 'BEGIN { printf "%.1f", b / 1048576 }') MB)"
else
  ENGINE_NAME=PostgreSQL
  pool=$(grep -oE "'DATABASE_POOL_SIZE', [0-9]+" "$ROOT/src/config.ts" 2>/dev/null | grep -oE '[0-9]+$' || true)
  DB_DESC="$(node "$BENCH_DIR/util.js" pg-describe "$DB" 2>/dev/null || echo PostgreSQL), \`$(safe_url "$DB")\`; the service's default pool (DATABASE_POOL_SIZE${pool:+ = $pool}) per process$([[ -z "$WORKERS" ]] || echo ", so ${pool:+up to $((pool * WORKERS)) }connections from the $WORKERS workers"); PostgreSQL's server processes run on the same machine and share its cores"
fi
RUNTIME_S=$(awk -v a="$SCRIPT_T0" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%.0f", b - a }')

{
  echo "## Read benchmark — $ENGINE_NAME${WORKERS:+, \`serve --workers $WORKERS\`} — $(date '+%Y-%m-%d %H:%M:%S %Z')"
  echo
  echo "Database: $DB_DESC."
  echo "Dataset: $(count_of "$DB_COUNTS" users) users, $(count_of "$DB_COUNTS" openings) openings, $(count_of "$DB_COUNTS" projects) projects, $(count_of "$DB_COUNTS" events) events, $(count_of "$DB_COUNTS" meetings) meetings (\`demo ${DEMO_ARGS[*]}\`)."
  if [[ -n "$WORKERS" ]]; then
    echo "Service: \`hackerspace-api serve --workers $WORKERS\` (node:cluster: a primary and $WORKERS workers). wrk runs on one of the machine's $(nproc) cores: the workers compete with it$([[ $ENGINE == sqlite ]] || echo ' and with PostgreSQL') for the CPU, so req/s is not $WORKERS × that of one process."
  else
    echo "Service: \`hackerspace-api serve\` (one process)."
  fi
  echo "Load: \`wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s --latency\` after 1 s of warm-up, per URL."
  echo "Ceiling: a bare \`node:http\` server (bench/ceiling.js$([[ -z "$WORKERS" ]] || echo ", as $WORKERS node:cluster workers like the service")) answering a precomputed buffer of the same size — each route's own body bytes and headers — measured with the same load: the ceiling for Node on this machine; ratio = req/s ÷ that route's ceiling."
  if [[ ${#PASSES[@]} -gt 1 ]]; then
    echo "Each URL is measured with the default configuration (repeated requests are answered by the response cache) and with the cache off (\`RESPONSE_CACHE_MB=0\`: every request builds its page)."
  fi
  [[ $CPU_PROF -eq 0 ]] || echo "**The servers ran under \`--cpu-prof\`: these numbers are slower than normal.**"
  echo
  if [[ ${#PASSES[@]} -gt 1 ]]; then
    echo "| route | req/s | p99 | ceiling req/s (same body) | ratio | req/s, cache off | p99, cache off | ratio, cache off | body |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  else
    echo "| route | req/s | p99 | ceiling req/s (same body) | ratio | body |"
    echo "|---|---:|---:|---:|---:|---:|"
  fi
  for route in "${ROUTES[@]}"; do
    ceiling=${RPS[ceiling|$route]}
    printf '| `%s` | %s | %s ms | %s | %s |' "$route" "${RPS[default|$route]}" "${P99[default|$route]}" "$ceiling" "$(ratio "${RPS[default|$route]}" "$ceiling")"
    if [[ ${#PASSES[@]} -gt 1 ]]; then
      printf ' %s | %s ms | %s |' "${RPS[nocache|$route]}" "${P99[nocache|$route]}" "$(ratio "${RPS[nocache|$route]}" "$ceiling")"
    fi
    printf ' %s B |\n' "${BYTES[$route]}"
  done
  echo
  echo "- Startup to the first 200 on \`/api/\`$([[ -z "$WORKERS" ]] || echo " (from the primary's start to the first worker's answer)"): **$STARTUP_MEDIAN ms** median of 3 starts (${STARTUPS[*]} ms) — target < $TARGET_STARTUP_MS ms: $STARTUP_OK"
  if [[ ${#PASSES[@]} -gt 1 ]]; then
    echo "- \`$DEEP_ROUTE\` single request, cache off: **${DEEP[nocache]}** — target < $TARGET_DEEP_MS ms: $DEEP_OK; cache on (hits): ${DEEP[default]}"
    echo "- Peak RSS of the server$RSS_HOW: **${RSS[default]} MB**${RSS_PARTS[default]:+ (${RSS_PARTS[default]})} (cache off: ${RSS[nocache]} MB${RSS_PARTS[nocache]:+: ${RSS_PARTS[nocache]}}) — target < $TARGET_RSS_MB MB: $RSS_OK"
  else
    echo "- \`$DEEP_ROUTE\` single request: **${DEEP[default]}** — target < $TARGET_DEEP_MS ms: $DEEP_OK"
    echo "- Peak RSS of the server$RSS_HOW: **${RSS[default]} MB**${RSS_PARTS[default]:+ (${RSS_PARTS[default]})} — target < $TARGET_RSS_MB MB: $RSS_OK"
  fi
  [[ $ENGINE == sqlite ]] || echo "- RSS counts the Node processes only: PostgreSQL's own memory (shared buffers, one backend per pooled connection) is not included."
  [[ -z "$WORKERS" ]] || echo "- With workers, single requests open a new connection each, handed to the workers in turn: each worker's response cache fills on its own."
  echo "- Dataset build: $BUILD_NOTE"
  for pass in "${PASSES[@]}" ceiling; do
    for route in "${ROUTES[@]}"; do
      [[ -z "${ERRORS[$pass|$route]}" ]] || echo "- wrk socket errors on \`$pass|$route\`: ${ERRORS[$pass|$route]}"
    done
  done
  echo "- CLI entry point: $CLI_ENTRY"
  echo "- Run time of this script: $RUNTIME_S s"
  echo "- CPU busy with other processes (1 s samples, all cores): $(IFS=';'; echo "${IDLE_CHECKS[*]}" | sed 's/;/, /g')$([[ $NOISY -eq 0 ]] || echo ' — **the machine was not idle: noisy results**')"
  echo "- Machine: $(nproc) cores${CPU_MODEL:+ ($CPU_MODEL)}, node $(node --version), $({ wrk --version 2>&1 || true; } | awk 'NR == 1 { print $1, $2 }'), commit $(git_rev)"
} >"$REPORT"

echo
cat "$REPORT"
echo
echo "(written to $(rel "$REPORT"); raw outputs in $(rel "$WORK")/)"

if [[ $CPU_PROF -eq 1 ]]; then
  for pass in "${PASSES[@]}"; do
    # The main thread's profile is the biggest (tsx adds a loader thread with its own).
    prof=$(ls -S "${PROF_DIRS[$pass]}"/*.cpuprofile 2>/dev/null | head -n 1 || true)
    [[ -n "$prof" ]] || die "--cpu-prof: the '$pass' server wrote no profile to $(rel "${PROF_DIRS[$pass]}")"
    echo
    echo "CPU profile of the '$pass' server (startup and all its runs): $(rel "$prof") (open it in Chrome DevTools)"
    node "$BENCH_DIR/util.js" prof-top "$prof" || log "could not summarise the profile"
  done
fi

if [[ "$STARTUP_OK$DEEP_OK$RSS_OK" != okokok ]]; then
  echo
  echo "read.sh: a target was missed (see above)" >&2
  exit 3
fi
