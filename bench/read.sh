#!/usr/bin/env bash
# Read benchmark of the HTTP API on a large demo dataset.
#
#   bash bench/read.sh [--db sqlite|postgres] [--workers N] [--keep-db | --rebuild] [--duration S]
#                      [--walk-limit S] [--mixed-seconds S] [--skip-uncached] [--cpu-prof] [--no-pin]
#
# 1. builds (or reuses) a database with the `demo` command: 2,000 users, 1,000,000 openings,
#    200 projects, 500 events, 300 meetings — a SQLite file in bench/out/ (the default), or with
#    --db postgres the PostgreSQL database hackerspace_bench (see below);
# 2. starts `hackerspace-api serve` and times the first answered request (3 starts, median);
# then, with wrk, each measurement next to its ceiling — a bare node:http server
# (bench/ceiling.js) answering precomputed bytes: the same status, headers and body as the API's
# answer, measured the same way in the same run, in turn with the API's URL (3 rounds each, so
# that a drift of the machine's speed shifts both alike; the ceiling for Node on this machine;
# ratio = the API's req/s ÷ the ceiling's):
# A. on a server started afresh (default configuration), the first page of every collection
#    (/api/users/, /api/space/openings/, /api/projects/, /api/meetings/, /api/events/),
#    /api/space/status/ and /api/, asked over and over (so answered by the response cache):
#    req/s and p99 against the ceiling sending the same bytes and headers. Target: ratio ≥ 0.70
#    for each. Then each collection again with `Accept-Encoding: gzip` against a ceiling
#    sending the same compressed bytes and headers (ratio only, no target);
# B. the same URLs with `If-None-Match: <the ETag the server sent for that URL>`: every answer
#    must be `304 Not Modified` (counted by bench/report.lua, since wrk counts a 304 as a
#    success), against a ceiling answering 304 with the headers the API sent on its 304.
#    Target: ratio ≥ 0.80 for each. A URL whose 200 carries no ETag, or whose conditional GET is
#    not answered 304, misses its target;
# C1. on another server started afresh (default configuration, nothing asked yet): every page of
#    /api/space/openings/ (page_size default: 10,000 pages of 100) exactly once, in a random
#    order (bench/walk.lua: a shuffled list, one connection, `wrk -t1 -c1`: latency is service
#    time, not queueing), so no answer can come from the response cache: p50, p90, p99, req/s.
#    Target: p50 < 5 ms. Then, on that server, A's first page of openings again, now with
#    10,000 more entries in the response cache (no target: hits should not get slower);
# C2. a third server with the response cache off (RESPONSE_CACHE_MB=0): page 1 and the last
#    page of the openings (10,000), one connection each for --duration seconds (`wrk -t1 -c1`):
#    p50 of each and their ratio. Target: last ÷ first ≤ 2. On that server too (unless
#    --skip-uncached), every URL of A with the cache off, against the same ceilings: what a page
#    nobody asked for since the last write costs;
# D. mixed load, on a scratch copy of the dataset (a copy of the SQLite file; on PostgreSQL a
#    database created from the cached one as template, dropped afterwards: the cached dataset is
#    never written) and two `serve` processes on it: wrk readers poll the first page of the
#    openings on the first process for --mixed-seconds while bench/mixed.js posts a door report
#    every 100 ms to it (a door token made with `token create --name bench-mixed --scope door`,
#    kept in memory) and, after each 201, at once reads the first page on both processes, plain
#    and with If-None-Match: <the ETag seen before the post>: results[0] must be the opening just
#    posted and the conditional GET must be 200, not 304. Any stale read fails the run;
# E. the peak RSS (VmHWM) of every server process this run started (with --workers, the sum over
#    the primary and its workers). Target: < 300 MB for each;
# and prints a Markdown report, also written to bench/out/read-<date>-<engine>[-w<N>].md (the
# run's raw outputs in bench/out/run-<date>/).
#
# Options:
#   --db ENGINE    sqlite (default) or postgres. PostgreSQL: the database named by
#                  BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/hackerspace_bench)
#                  is created if missing (never dropped) and filled with `demo … --replace`, then
#                  vacuumed (VACUUM FULL, then VACUUM (FREEZE, ANALYZE): statistics, visibility
#                  map, no dead rows — the state autovacuum brings a production database to). A
#                  marker file in bench/out/ (like the SQLite file's .meta) records the demo
#                  arguments, row counts, the database's oid and its data version (the service's
#                  table_versions): the database is reused only while all of them still match (any
#                  write, or a drop and create, means a rebuild). One database holds one dataset
#                  size at a time. The mixed load runs on a copy (CREATE DATABASE … TEMPLATE,
#                  which needs nobody else connected to that database at that moment).
#   --workers N    start the service as `serve --workers N` (node:cluster: a primary and N
#                  workers), and the ceiling as N workers too. RSS is then the sum of the peaks
#                  of all those processes. wrk takes a core of its own: on a small machine the
#                  workers compete with it (and with PostgreSQL) for the CPU.
#   --keep-db      use the cached database as it is, without checking its sizes (never build)
#   --rebuild      build the database again even if the cached one has the right sizes
#   --duration S   seconds of measurement per URL (default 5; each URL also gets 1 s of warm-up)
#   --walk-limit S longest the C1 walk over all pages may take (default 240 s; a walk stopped by
#                  it is reported with the pages it reached, and misses its target)
#   --mixed-seconds S  length of the mixed load (default 10)
#   --skip-uncached  skip the cache-off rows of A (C2 still runs)
#   --no-pin       let the scheduler place every process (by default, on a machine with 2 or more
#                  CPUs and without --workers, wrk and the other load clients run on the first CPU
#                  this script may use and every server on the others: see "CPU placement" below)
#   --cpu-prof     run the benchmarked servers of A, B, C1 and C2 under `node --cpu-prof` and print
#                  where their CPU time went (the profiler slows the servers: numbers from such a
#                  run are not comparable to others)
#
# Environment (optional): BENCH_USERS, BENCH_OPENINGS, BENCH_PROJECTS, BENCH_EVENTS,
# BENCH_MEETINGS change the dataset (each size gets its own cached SQLite file; PostgreSQL has
# one database, rebuilt when the size changes); BENCH_POSTGRES_URL the PostgreSQL database;
# WRK_THREADS (1) and WRK_CONNECTIONS (32) change the load of A, B, the cache-off rows and the
# mixed load's readers (wrk runs on one thread so the server keeps a core); WALK_SEED (1) the
# order of the C1 walk.
#
# Exit status: 0 when everything was measured and every target met; 1 on any failure (a command
# failed, a URL did not answer 200, an answer under load was not the expected one — a 304 where
# every answer must be 304, a body of the wrong size —, the server died, a stale read or a post
# not answered 201 in the mixed load…); 3 when the measurements completed but a target was
# missed (startup < 1000 ms; A ≥ 0.70 and B ≥ 0.80 of the ceiling; C1 p50 < 5 ms over a complete
# walk; C2 last page ÷ first page ≤ 2; peak RSS < 300 MB per server — with --workers, summed over
# its processes).
set -Eeuo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
SCRIPT_NAME=read.sh
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"   # log, die, rel, safe_url, stop_pid, drop_scratch
OUT="$BENCH_DIR/out"
cd "$ROOT"

# ---------------------------------------------------------------------------------------------
# Options

DB_MODE=auto   # auto | keep | rebuild
ENGINE=sqlite  # sqlite | postgres
WORKERS=""     # empty: `serve` as one process
DURATION=5
WALK_LIMIT=240
MIXED_SECONDS=10
CPU_PROF=0
UNCACHED=1
PIN=1

usage() { sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }
need_value() { [[ $1 -ge 2 ]] || { echo "read.sh: $2 needs a value" >&2; exit 2; }; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --db) need_value $# "$1"; ENGINE=$2; shift ;;
    --db=*) ENGINE=${1#*=} ;;
    --workers) need_value $# "$1"; WORKERS=$2; shift ;;
    --workers=*) WORKERS=${1#*=} ;;
    --keep-db) DB_MODE=keep ;;
    --rebuild) DB_MODE=rebuild ;;
    --duration) need_value $# "$1"; DURATION=$2; shift ;;
    --duration=*) DURATION=${1#*=} ;;
    --walk-limit) need_value $# "$1"; WALK_LIMIT=$2; shift ;;
    --walk-limit=*) WALK_LIMIT=${1#*=} ;;
    --mixed-seconds) need_value $# "$1"; MIXED_SECONDS=$2; shift ;;
    --mixed-seconds=*) MIXED_SECONDS=${1#*=} ;;
    --cpu-prof) CPU_PROF=1 ;;
    --skip-uncached) UNCACHED=0 ;;
    --no-pin) PIN=0 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "read.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
for v in DURATION WALK_LIMIT MIXED_SECONDS; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || { echo "read.sh: --$(tr 'A-Z_' 'a-z-' <<<"$v") expects whole seconds ≥ 1, got '${!v}'" >&2; exit 2; }
done
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
SEED=${WALK_SEED:-1}
for v in USERS OPENINGS PROJECTS EVENTS MEETINGS THREADS CONNECTIONS SEED; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || { echo "read.sh: $v must be a whole number, got '${!v}'" >&2; exit 2; }
done
[[ $OPENINGS -ge 1 ]] || { echo "read.sh: BENCH_OPENINGS must be at least 1 (the openings are walked)" >&2; exit 2; }

COLLECTIONS=(/api/users/ /api/space/openings/ /api/projects/ /api/meetings/ /api/events/)
ROUTES=("${COLLECTIONS[@]}" /api/space/status/ /api/)
OPENINGS_ROUTE=/api/space/openings/
MIXED_INTERVAL_MS=100
TARGET_STARTUP_MS=1000
TARGET_A_RATIO=0.70
TARGET_B_RATIO=0.80
TARGET_WALK_P50_MS=5
TARGET_DEEP_RATIO=2
TARGET_RSS_MB=300

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

PIDS=()           # the background processes this script started and has not stopped yet
SCRATCH_FILES=()  # the mixed load's copy of the SQLite file
SCRATCH_PG=()     # the mixed load's PostgreSQL database

cleanup() {
  local rc=$? pid
  trap - EXIT INT TERM ERR
  for pid in "${PIDS[@]}"; do stop_pid "$pid"; done
  drop_scratch
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

for tool in node curl awk cmp; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is required but not on PATH"
done
ensure_wrk
[[ -f "$ROOT/bin/hackerspace-api.js" ]] || die "bin/hackerspace-api.js not found under $ROOT"
for f in ceiling.js util.js report.lua walk.lua mixed.js; do
  [[ -f "$BENCH_DIR/$f" ]] || die "bench/$f not found"
done
# walk.lua times requests through LuaJIT's ffi: make sure this wrk has it (wrk loads the script
# before it connects; nothing listens on port 1, so it stops there).
printf 'local ffi = require("ffi")\n' >"$WORK/ffi-check.lua"
wrk_lua=$(wrk -t1 -c1 -d1s -s "$WORK/ffi-check.lua" http://127.0.0.1:1/ 2>&1 || true)
! grep -q "module 'ffi' not found" <<<"$wrk_lua" || die "this wrk's Lua has no ffi module (bench/walk.lua needs LuaJIT's)"

now_ms() { local t=${EPOCHREALTIME/,/.}; echo $(( ${t%.*} * 1000 + 10#${t#*.} / 1000 )); }
seconds_since() { awk -v ms=$(($(now_ms) - $1)) 'BEGIN { printf "%.1f", ms / 1000 }'; }

# Median of numbers given one per line on stdin.
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) exit 1; if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

free_port() { node "$BENCH_DIR/util.js" free-port || die "could not find a free port"; }

git_rev() {
  local rev
  rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) || { echo unknown; return; }
  [[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]] || rev="$rev+changes"
  echo "$rev"
}

us_to_ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "—"; else printf "%.3f", a / b }'; }
# at_least V T / below V T / at_most V T → ok or MISSED
at_least() { awk -v v="$1" -v t="$2" 'BEGIN { print (v != "" && v != "—" && v + 0 >= t + 0) ? "ok" : "MISSED" }'; }
below() { awk -v v="$1" -v t="$2" 'BEGIN { print (v != "" && v != "—" && v + 0 < t + 0) ? "ok" : "MISSED" }'; }
at_most() { awk -v v="$1" -v t="$2" 'BEGIN { print (v != "" && v != "—" && v + 0 <= t + 0) ? "ok" : "MISSED" }'; }
slug() { local s=${1//[^a-zA-Z0-9]/_}; echo "${s#_}"; }
# field LINE NAME → the value of NAME=value in a RESULT / WALK / MIXED line
field() { sed -nE "s/(^|.*[ ])$2=([^ ]*).*/\\2/p" <<<"$1" | head -n 1; }
# header_value HEADERS-FILE NAME → the value of that header (the last one of that name)
header_value() { awk -v n="$(tr 'A-Z' 'a-z' <<<"$2")" 'BEGIN { FS = ":" } { sub(/\r$/, "") } tolower($1) == n { v = substr($0, length($1) + 2); sub(/^[ \t]+/, "", v) } END { print v }' "$1"; }

# The configuration variables the server reads, other than the ones set here, are removed so
# that a developer's environment (PAGE_SIZE, PUBLIC_URL…) cannot change what is measured: the
# ones src/config.ts reads today, and the ones it read when this script was written.
SERVER_ENV_UNSET=()
for v in $(grep -oE "env\.[A-Z_]+|env, '[A-Z_]+'" "$ROOT/src/config.ts" 2>/dev/null | grep -oE '[A-Z][A-Z_]+' || true) \
         PUBLIC_URL TRUST_PROXY TIME_ZONE PAGE_SIZE MAX_PAGE_SIZE AVATAR_FIELD AVATAR_HASH AVATAR_DEFAULT RESPONSE_CACHE_MB \
         CACHE_CONTROL COMPRESS_MIN_BYTES DATABASE_POOL_SIZE DATABASE_STATEMENT_TIMEOUT_MS; do
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
GIT_REV=$(git_rev)   # now: the commit the program under test comes from (src/ may change later)
if [[ $CLI_ENTRY == dist/* ]]; then
  # Next to the run's other files; better-sqlite3 is still found in $ROOT/node_modules. Named so
  # that its command line does not look like a developer's `node dist/hackerspace-api.mjs serve`
  # (which a broad `pkill -f` aimed at those would stop in the middle of a run).
  CLI="$WORK/bench-cli.mjs"
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
# PostgreSQL only: "<database oid> <data version> <server version>"; any write or a new database
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
    # the visibility map, an index-only scan visits the table for every row it reads.
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

# ---------------------------------------------------------------------------------------------
# CPU placement. A server and its load generator talk over loopback at tens of thousands of
# round trips a second; left to the scheduler, they sometimes share one core for seconds at a
# time (measured on a 2-core machine: one service process answering the same 304 to wrk, 2 s at
# a time over a few minutes, went from 24,917 to 51,641 req/s unpinned, and from 44,397 to
# 51,785 pinned). So wrk and the other load clients get the first CPU this script may use, and
# every server (the service and the ceiling alike) the others. With --workers, the workers would
# share those CPUs where the scheduler could spread them: nothing is pinned then.
PIN_LOAD=()      # prefix for load clients: taskset -c <cpu>, or nothing
PIN_SERVER=()    # prefix for servers
allowed_cpus() {   # the CPUs this process may run on, one per line
  local part
  for part in $(awk '/^Cpus_allowed_list:/ { gsub(",", " ", $2); print $2 }' /proc/self/status 2>/dev/null); do
    if [[ $part == *-* ]]; then seq "${part%-*}" "${part#*-}"; else echo "$part"; fi
  done
}
mapfile -t CPU_LIST < <(allowed_cpus)
if [[ $PIN == 0 ]]; then
  PLACEMENT="not pinned (--no-pin): the scheduler placed wrk and the servers"
elif [[ -n "$WORKERS" ]]; then
  PLACEMENT="not pinned (--workers: the workers and wrk share the machine's cores as the scheduler places them)"
elif (( ${#CPU_LIST[@]} < 2 )) || ! command -v taskset >/dev/null 2>&1; then
  PLACEMENT="not pinned (pinning needs taskset and 2 CPUs; this script may use ${#CPU_LIST[@]})"
else
  SERVER_CPUS=$(IFS=,; echo "${CPU_LIST[*]:1}")
  PIN_LOAD=(taskset -c "${CPU_LIST[0]}")
  PIN_SERVER=(taskset -c "$SERVER_CPUS")
  PLACEMENT="wrk and the other load clients on CPU ${CPU_LIST[0]}, every server on CPU $SERVER_CPUS (taskset)"
fi
log "CPU placement: $PLACEMENT"
check_idle "before the first server starts"

# ---------------------------------------------------------------------------------------------
# Servers. Each one has a name; its peak RSS (E) is read when it is stopped.

# http_code URL [OUTPUT-FILE [HEADERS-FILE [CURL ARGS...]]]: the status code, 000 when nothing
# answered. curl sends no Accept-Encoding unless asked, and keeps the bytes as sent.
http_code() {
  local url=$1 out=${2:-/dev/null} headers=${3:-/dev/null}
  shift $(( $# < 3 ? $# : 3 ))
  [[ "$out" == /dev/null ]] || : >"$out"   # curl writes no file for an answer without a body
  curl -sS -o "$out" -D "$headers" -w '%{http_code}' --max-time 10 "$@" "$url" 2>/dev/null || true
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

children_of() {
  local pid=$1
  if compgen -G "/proc/$pid/task/*/children" >/dev/null; then
    cat /proc/"$pid"/task/*/children 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+$' || true
  else
    ps -o pid= --ppid "$pid" 2>/dev/null | tr -d ' ' || true
  fi
}

# wait_for_workers PID N LOG: waits (30 s at most) until the primary PID has N child processes,
# and sets KIDS to them.
KIDS=()
wait_for_workers() {
  local pid=$1 n=$2 log_file=$3 deadline=$(( $(now_ms) + 30000 )) kids
  while :; do
    kill -0 "$pid" 2>/dev/null || die "the primary (pid $pid) exited while its workers started (log: $(rel "$log_file"))"
    mapfile -t kids < <(children_of "$pid")
    [[ ${#kids[@]} -lt $n ]] || break
    (( $(now_ms) < deadline )) || die "--workers $n: only ${#kids[@]} worker processes after 30 s (log: $(rel "$log_file"))"
    sleep 0.05
  done
  [[ ${#kids[@]} -eq $n ]] || log "note: the primary has ${#kids[@]} child processes (asked for $n workers); all are counted"
  KIDS=("${kids[@]}")
  PIDS+=("${kids[@]}")   # stopped after the primary, should they outlive it
}

declare -A SRV_PID SRV_PORT SRV_LOG SRV_KIDS SRV_ROLE RSS_MB RSS_PARTS
SERVERS=()        # names, in the order they started
STARTUP_MS=""

# start_server NAME ROLE DB-URL EXTRA-ENV [NODE FLAGS...]: starts `serve`, waits for /api/ to answer
# 200 and sets STARTUP_MS (from just before the process is created to the end of that first
# answer: with --workers, the first worker that answers); with --workers, then waits for all.
start_server() {
  local name=$1 role=$2 db_url=$3 extra_env=$4 t0; shift 4
  SRV_PORT[$name]=$(free_port)
  SRV_LOG[$name]="$WORK/$name.log"
  SRV_ROLE[$name]=$role
  t0=$(now_ms)
  # shellcheck disable=SC2086 # extra_env is empty or NAME=value words
  env "${SERVER_ENV_UNSET[@]}" $extra_env DATABASE_URL="$db_url" HOST=127.0.0.1 PORT="${SRV_PORT[$name]}" LOG_LEVEL=warn \
    "${PIN_SERVER[@]}" node "$@" "$CLI" "${SERVE_ARGS[@]}" >"${SRV_LOG[$name]}" 2>&1 &
  SRV_PID[$name]=$!; PIDS+=("${SRV_PID[$name]}")
  SERVERS+=("$name")
  wait_for_200 "http://127.0.0.1:${SRV_PORT[$name]}/api/" "${SRV_PID[$name]}" "${SRV_LOG[$name]}" 30
  STARTUP_MS=$(( $(now_ms) - t0 ))
  SRV_KIDS[$name]=""
  if [[ -n "$WORKERS" ]]; then
    wait_for_workers "${SRV_PID[$name]}" "$WORKERS" "${SRV_LOG[$name]}"
    SRV_KIDS[$name]="${KIDS[*]}"
  fi
}

base_of() { echo "http://127.0.0.1:${SRV_PORT[$1]}"; }
# procs_of NAME: the primary and its workers
procs_of() { echo "${SRV_PID[$1]} ${SRV_KIDS[$1]}"; }

# stop_server NAME: reads the peak RSS of its processes (VmHWM: each one's own peak; with
# workers, summed — they need not peak together, so an upper bound), then stops the primary
# (which stops its workers) and any worker still there.
stop_server() {
  local name=$1 p hwm_kb total_kb=0 parts=()
  for p in $(procs_of "$name"); do
    hwm_kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$p/status" 2>/dev/null || true)
    [[ -n "$hwm_kb" ]] || die "could not read VmHWM of the server process $p ($name)"
    total_kb=$((total_kb + hwm_kb))
    parts+=("$(awk -v kb="$hwm_kb" 'BEGIN { printf "%.1f", kb / 1024 }')")
  done
  RSS_MB[$name]=$(awk -v kb="$total_kb" 'BEGIN { printf "%.1f", kb / 1024 }')
  if [[ -n "$WORKERS" ]]; then
    RSS_PARTS[$name]="primary ${parts[0]} + workers $(IFS=+; echo "${parts[*]:1}" | sed 's/+/ + /g') MB"
  fi
  log "server $name: peak RSS (VmHWM${WORKERS:+, summed}) ${RSS_MB[$name]} MB${RSS_PARTS[$name]:+ (${RSS_PARTS[$name]})}"
  [[ ! -s "${SRV_LOG[$name]}" ]] || log "note: the server $name wrote to its log (LOG_LEVEL=warn): $(rel "${SRV_LOG[$name]}")"
  stop_pid "${SRV_PID[$name]}"
  for p in ${SRV_KIDS[$name]}; do stop_pid "$p"; done
}

# alive PID...: every one of them still runs.
alive() { local p; for p in "$@"; do kill -0 "$p" 2>/dev/null || return 1; done; }
# dead_report: which process under test is gone, and how it ended (for the failure message).
dead_report() {
  local p n name rc
  for p in "${UNDER_TEST[@]}"; do
    kill -0 "$p" 2>/dev/null && continue
    name="pid $p"
    for n in "${!SRV_PID[@]}"; do [[ "${SRV_PID[$n]}" != "$p" ]] || name="server $n (pid $p, log $(rel "${SRV_LOG[$n]}"))"; done
    rc=0; wait "$p" 2>/dev/null || rc=$?
    case $rc in
      0) echo "$name exited with status 0: a clean shutdown, as after a SIGTERM — did something outside this script stop it?" ;;
      127) echo "$name is gone (not a child of this script: a worker?)" ;;
      *) echo "$name exited with status $rc$([[ $rc -le 128 ]] || echo " (signal $((rc - 128)))")" ;;
    esac
    return 0
  done
  echo "no process under test is missing"
}

# ---------------------------------------------------------------------------------------------
# 2. Startup: two throw-away starts; the third server (C1's) makes the median of three.

STARTUPS=()
for i in 1 2; do
  start_server "startup-$i" "startup $i (only /api/ asked)" "$DB_URL" ""
  STARTUPS+=("$STARTUP_MS")
  log "startup $i: $STARTUP_MS ms to the first 200 on /api/"
  stop_server "startup-$i"
done

# ---------------------------------------------------------------------------------------------
# Measurement helpers

body_file() { echo "$WORK/body-$1-$(slug "$2").json"; }   # body_file VARIANT ROUTE

# check_url URL BODY-FILE [CURL ARGS...]: GET it, saving the body (and its headers in
# BODY-FILE.headers); it must answer 200 with a JSON object (as sent: maybe compressed).
check_url() {
  local url=$1 body=$2 code; shift 2
  code=$(http_code "$url" "$body" "$body.headers" "$@")
  if [[ "$code" != 200 ]]; then
    head -c 500 "$body" 2>/dev/null | sed 's/^/    body: /' >&2 || true
    die "GET $url answered ${code/#000/nothing} instead of 200"
  fi
  [[ -s "$body" ]] || die "GET $url answered 200 with no body"
}
is_json_object() { [[ "$(head -c 1 "$1")" == "{" ]]; }

# answer_bytes BODY-FILE: the size of the whole answer as received (status line, headers, body).
answer_bytes() { echo $(( $(stat -c %s "$1.headers") + $(stat -c %s "$1") )); }

# Absolute links in bodies name the server's port; this makes bodies of two servers comparable.
normalized() { sed "s/127\\.0\\.0\\.1:$2/127.0.0.1:PORT/g" "$1"; }

declare -A RPS P50 P99 ERRORS STATUSES REQUESTS
UNDER_TEST=()   # the processes that must stay alive while a URL is measured

# bench_url KEY URL EXPECT-BYTES WANT-STATUS [-H HEADER]...: wrk with bench/report.lua, 1 s of
# warm-up then --duration seconds. EXPECT-BYTES (or empty): the size of one whole answer; the
# bytes wrk read must fit it (every answer the same: a 304, an error or an uncompressed body
# where a compressed one was expected would not). WANT-STATUS (or empty): every answer must
# have that status (counted by report.lua). Answers >= 400, or a process under test that died,
# fail the run.
bench_url() {
  local key=$1 url=$2 expect=$3 want=$4 file line f n reqs bytes code sock; shift 4
  local envs=(WRK_STATUSES=0)
  [[ -z "$want" ]] || envs=(WRK_STATUSES=1)
  file="$WORK/wrk-$(slug "$key").txt"
  env "${envs[@]}" "${PIN_LOAD[@]}" wrk -t"$THREADS" -c"$CONNECTIONS" -d1s --timeout 10s -s "$BENCH_DIR/report.lua" "$@" "$url" >"$file.warmup" 2>&1 \
    || { cat "$file.warmup" >&2; die "wrk (warm-up) failed on $url"; }
  # The server still works through the requests wrk abandoned at the end of the warm-up; one
  # request of our own queues behind them, so the measurement starts with an idle server.
  alive "${UNDER_TEST[@]}" || die "a process under test died during the warm-up on $key: $(dead_report)"
  code=$(http_code "$url" /dev/null /dev/null "$@")
  [[ "$code" == "${want:-200}" ]] || die "$key: $url answered $code after the warm-up (expected ${want:-200})"
  env "${envs[@]}" "${PIN_LOAD[@]}" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s -s "$BENCH_DIR/report.lua" "$@" "$url" >"$file" 2>&1 \
    || { cat "$file" >&2; die "wrk failed on $url"; }
  alive "${UNDER_TEST[@]}" || die "a process under test died during the run on $key: $(dead_report)"
  for f in "$file.warmup" "$file"; do
    line=$(grep -E '^RESULT ' "$f" | tail -n 1) || true
    [[ -n "$line" ]] || { cat "$f" >&2; die "wrk printed no RESULT line for $key ($(rel "$f"))"; }
    n=$(field "$line" status_errors)
    [[ "$n" == 0 ]] || { cat "$f" >&2; die "$key: $n answers were 4xx/5xx under load"; }
    if [[ -n "$want" ]]; then
      [[ "$(field "$line" statuses)" == "$want:$(field "$line" requests)" ]] \
        || die "$key: not every answer was $want under load: statuses $(field "$line" statuses) of $(field "$line" requests) answers ($(rel "$f"))"
    fi
  done
  reqs=$(field "$line" requests); bytes=$(field "$line" bytes)
  [[ "$reqs" -gt 0 ]] || { cat "$file" >&2; die "$key: no request completed in $DURATION s (server stuck, or the machine far too busy)"; }
  if [[ -n "$expect" ]]; then
    # Every complete answer is counted; besides, at most one partial answer per connection at the end.
    awk -v b="$bytes" -v r="$reqs" -v c="$CONNECTIONS" -v e="$expect" 'BEGIN { exit !(b >= 0.98 * r * e && b <= 1.02 * (r + c) * e) }' \
      || die "$key: wrk read $bytes bytes in $reqs answers, $(awk -v b="$bytes" -v r="$reqs" 'BEGIN { printf "%.0f", b / r }') per answer where each should be $expect bytes ($(rel "$file"))"
  fi
  REQUESTS[$key]=$reqs
  RPS[$key]=$(awk -v n="$reqs" -v us="$(field "$line" duration_us)" 'BEGIN { printf "%.0f", n / (us / 1e6) }')
  P50[$key]=$(us_to_ms "$(field "$line" p50_us)")
  P99[$key]=$(us_to_ms "$(field "$line" p99_us)")
  STATUSES[$key]=$(field "$line" statuses)
  sock=$(( $(field "$line" connect) + $(field "$line" read) + $(field "$line" write) + $(field "$line" timeout) ))
  ERRORS[$key]=""
  [[ $sock -eq 0 ]] || ERRORS[$key]="connect $(field "$line" connect), read $(field "$line" read), write $(field "$line" write), timeout $(field "$line" timeout)"
  log "$(printf '%-58s %8s req/s   p99 %8s ms%s' "$key" "${RPS[$key]}" "${P99[$key]}" "${ERRORS[$key]:+   socket errors: ${ERRORS[$key]}}")"
}

declare -A W_PAGES W_PLANNED W_RPS W_P50 W_P90 W_P99 W_MAX W_WRK W_NOTE
# run_walk KEY URL-PREFIX CONNECTIONS LIMIT-S VAR=value...: wrk with bench/walk.lua (the
# variables: WALK_PAGES=N for the walk over all pages, WALK_PAGE=N for one page over and over);
# the walk stops itself after its last page (read.sh then interrupts wrk, which would otherwise
# wait for LIMIT-S). Every answer must be 200.
run_walk() {
  local key=$1 url=$2 conns=$3 limit=$4 file done_file pid line t0 sent=0 pages; shift 4
  file="$WORK/walk-$(slug "$key").txt"; done_file="$file.done"
  rm -f "$done_file"
  env "$@" WALK_THREADS="$conns" WALK_SEED="$SEED" WALK_DONE_FILE="$done_file" \
    "${PIN_LOAD[@]}" wrk -t"$conns" -c"$conns" -d"${limit}s" --timeout 30s -s "$BENCH_DIR/walk.lua" "$url" >"$file" 2>&1 &
  pid=$!; PIDS+=("$pid")
  t0=$(now_ms)
  while kill -0 "$pid" 2>/dev/null; do
    if [[ -f "$done_file" && $(wc -l <"$done_file") -ge $conns ]]; then
      # Every thread stopped; wrk's main thread sleeps until -d is up unless interrupted (its
      # SIGINT handler ends the sleep). Again every half second, in case the first signal
      # reached a wrk thread that was still finishing.
      if (( sent == 0 || $(now_ms) - sent > 500 )); then
        kill -INT "$pid" 2>/dev/null || true
        sent=$(now_ms)
      fi
    fi
    (( $(now_ms) - t0 < (limit + 30) * 1000 )) || die "$key: wrk did not end after $((limit + 30)) s"
    sleep 0.02
  done
  wait "$pid" || { cat "$file" >&2; die "wrk failed on $key ($(rel "$file"))"; }
  stop_pid "$pid"
  alive "${UNDER_TEST[@]}" || die "a process under test died during $key: $(dead_report)"
  line=$(grep -E '^WALK ' "$file" | tail -n 1) || true
  [[ -n "$line" ]] || { cat "$file" >&2; die "wrk printed no WALK line for $key ($(rel "$file"))"; }
  pages=$(field "$line" pages)
  [[ "$pages" -gt 0 ]] || die "$key: no page was answered ($(rel "$file"))"
  [[ "$(field "$line" statuses)" == "200:$pages" ]] || die "$key: not every page answered 200: statuses $(field "$line" statuses) ($(rel "$file"))"
  [[ "$(field "$line" connect)$(field "$line" read)$(field "$line" write)$(field "$line" timeout)" == 0000 ]] \
    || die "$key: socket errors (connect $(field "$line" connect), read $(field "$line" read), write $(field "$line" write), timeout $(field "$line" timeout)): the walk cannot be trusted ($(rel "$file"))"
  W_PAGES[$key]=$pages
  W_PLANNED[$key]=$(field "$line" planned)
  W_RPS[$key]=$(awk -v n="$pages" -v us="$(field "$line" elapsed_us)" 'BEGIN { printf "%.0f", (us > 0) ? n / (us / 1e6) : 0 }')
  W_P50[$key]=$(us_to_ms "$(field "$line" p50_us)")
  W_P90[$key]=$(us_to_ms "$(field "$line" p90_us)")
  W_P99[$key]=$(us_to_ms "$(field "$line" p99_us)")
  W_MAX[$key]=$(us_to_ms "$(field "$line" max_us)")
  W_WRK[$key]="wrk -t$conns -c$conns"
  log "$(printf '%-40s %6s pages  %6s req/s  p50 %7s ms  p90 %7s ms  p99 %7s ms' "$key" "$pages" "${W_RPS[$key]}" "${W_P50[$key]}" "${W_P90[$key]}" "${W_P99[$key]}")"
}

# ---------------------------------------------------------------------------------------------
# A, B: a server with the default configuration, started afresh

PROF_FLAGS=()
declare -A PROF_DIRS
PROF_SERVERS=()
prof_flags() {
  PROF_FLAGS=()
  if [[ $CPU_PROF -eq 1 ]]; then
    PROF_DIRS[$1]="$WORK/cpu-prof-$1"; mkdir -p "${PROF_DIRS[$1]}"
    PROF_FLAGS=(--cpu-prof --cpu-prof-dir="${PROF_DIRS[$1]}")
    PROF_SERVERS+=("$1")
  fi
}

prof_flags default
start_server default "A, B (default configuration)" "$DB_URL" "" "${PROF_FLAGS[@]}"
STARTUPS+=("$STARTUP_MS")
log "startup 3: $STARTUP_MS ms (pid ${SRV_PID[default]}${WORKERS:+, workers ${SRV_KIDS[default]}}, port ${SRV_PORT[default]})"
BASE=$(base_of default)
read -ra UNDER_TEST <<<"$(procs_of default)"

# What each URL answers: the body and headers the ceiling will send, the ETag, the 304, the
# compressed variant.
declare -A BODY_BYTES ETAG B_STATE GZ_ENC GZ_BYTES
for route in "${ROUTES[@]}"; do
  body=$(body_file default "$route")
  check_url "$BASE$route" "$body"
  is_json_object "$body" || die "GET $BASE$route answered 200 but not with a JSON object"
  [[ -z "$(header_value "$body.headers" content-encoding)" ]] || die "GET $route without Accept-Encoding came back with Content-Encoding $(header_value "$body.headers" content-encoding)"
  BODY_BYTES[$route]=$(stat -c %s "$body")
  ETAG[$route]=$(header_value "$body.headers" etag)
  if [[ -z "${ETAG[$route]}" ]]; then
    B_STATE[$route]="no ETag in the 200"
  else
    nm=$(body_file not-modified "$route")
    code=$(http_code "$BASE$route" "$nm" "$nm.headers" -H "If-None-Match: ${ETAG[$route]}")
    if [[ "$code" == 304 ]]; then
      [[ ! -s "$nm" ]] || die "GET $route with If-None-Match answered 304 with a body of $(stat -c %s "$nm") bytes"
      B_STATE[$route]=ok
    else
      B_STATE[$route]="If-None-Match answered $code"
    fi
  fi
done
for route in "${COLLECTIONS[@]}"; do
  gz=$(body_file gzip "$route")
  check_url "$BASE$route" "$gz" -H 'Accept-Encoding: gzip'
  GZ_ENC[$route]=$(header_value "$gz.headers" content-encoding)
  GZ_BYTES[$route]=$(stat -c %s "$gz")
  case "${GZ_ENC[$route]}" in
    gzip)
      node -e 'const fs = require("fs"), zlib = require("zlib"); process.exit(zlib.gunzipSync(fs.readFileSync(process.argv[1])).equals(fs.readFileSync(process.argv[2])) ? 0 : 1)' \
        "$gz" "$(body_file default "$route")" \
        || die "GET $route with Accept-Encoding: gzip: the body does not decompress to the uncompressed answer's bytes" ;;
    "") cmp -s "$gz" "$(body_file default "$route")" || die "GET $route with Accept-Encoding: gzip: an uncompressed body that differs from the plain answer's" ;;
    *) die "GET $route with Accept-Encoding: gzip answered Content-Encoding ${GZ_ENC[$route]}" ;;
  esac
done
log "all ${#ROUTES[@]} URLs answer 200; ETags: $(n=0; for r in "${ROUTES[@]}"; do [[ -z "${ETAG[$r]}" ]] || n=$((n + 1)); done; echo "$n of ${#ROUTES[@]}"); 304 to If-None-Match: $(n=0; for r in "${ROUTES[@]}"; do [[ "${B_STATE[$r]}" != ok ]] || n=$((n + 1)); done; echo "$n of ${#ROUTES[@]}"); gzip: $(n=0; for r in "${COLLECTIONS[@]}"; do [[ "${GZ_ENC[$r]}" != gzip ]] || n=$((n + 1)); done; echo "$n of ${#COLLECTIONS[@]}") collections"

# The ceiling: one node:http process sending every answer saved above (its status, headers and
# body as the API sent them) at /r/<index>. Each URL is measured right after the API's, so that
# a machine whose speed drifts during the run (shared cores) shifts both figures of a ratio alike.

check_idle "before the API and the ceiling are measured"
CEILING_FILES=()
declare -A CEILING_INDEX
add_ceiling() { CEILING_INDEX[$1]=${#CEILING_FILES[@]}; CEILING_FILES+=("$2"); }
for route in "${ROUTES[@]}"; do add_ceiling "A|$route" "$(body_file default "$route")"; done
for route in "${COLLECTIONS[@]}"; do add_ceiling "gzip|$route" "$(body_file gzip "$route")"; done
for route in "${ROUTES[@]}"; do
  [[ "${B_STATE[$route]}" != ok ]] || add_ceiling "B|$route" "$(body_file not-modified "$route")"
done
port=$(free_port)
"${PIN_SERVER[@]}" node "$BENCH_DIR/ceiling.js" ${WORKERS:+--workers "$WORKERS"} "$port" "${CEILING_FILES[@]}" >"$WORK/ceiling.log" 2>&1 &
CEILING_PID=$!; PIDS+=("$CEILING_PID")
wait_for_200 "http://127.0.0.1:$port/r/0" "$CEILING_PID" "$WORK/ceiling.log" 10
KIDS=()
[[ -z "$WORKERS" ]] || wait_for_workers "$CEILING_PID" "$WORKERS" "$WORK/ceiling.log"
CEILING_KIDS=("${KIDS[@]}")
CEILING_PROCS=("$CEILING_PID" "${KIDS[@]}")
log "ceiling: node:http on port $port${WORKERS:+ ($WORKERS node:cluster workers)}, ${#CEILING_FILES[@]} precomputed answers"
ceiling_url() { echo "http://127.0.0.1:$port/r/${CEILING_INDEX[$1]}"; }
for route in "${ROUTES[@]}"; do
  check_url "$(ceiling_url "A|$route")" "$WORK/ceiling-A-$(slug "$route").json"
  cmp -s "$WORK/ceiling-A-$(slug "$route").json" "$(body_file default "$route")" || die "the ceiling does not send the bytes of $route"
done
for route in "${COLLECTIONS[@]}"; do
  check_url "$(ceiling_url "gzip|$route")" "$WORK/ceiling-gzip-$(slug "$route").json" -H 'Accept-Encoding: gzip'
  cmp -s "$WORK/ceiling-gzip-$(slug "$route").json" "$(body_file gzip "$route")" || die "the ceiling does not send the compressed bytes of $route"
done
API_PROCS=("${UNDER_TEST[@]}")
# measure_pair KEY ROUTE URL BYTES STATUS [wrk args]: the API's URL and the ceiling's answer in
# turn, PAIR_ROUNDS times, each for DURATION / PAIR_ROUNDS s (rounded up: 2 s by default) after
# its own 1 s of warm-up, so that a machine whose speed drifts during the run (shared cores)
# shifts both figures of a ratio alike; req/s are over all rounds, p99 is the worst round's.
# (Six rounds of 1 s with one warm-up before the first were tried: on this 2-core machine their
# ratios were no steadier.)
PAIR_ROUNDS=3
ROUND_S=$(( (DURATION + PAIR_ROUNDS - 1) / PAIR_ROUNDS ))
measure_pair() {
  local key=$1 route=$2 url=$3 bytes=$4 want=$5 r; shift 5
  local DURATION=$ROUND_S
  for ((r = 1; r <= PAIR_ROUNDS; r++)); do
    UNDER_TEST=("${API_PROCS[@]}")
    bench_url "$key|$route #$r" "$url" "$bytes" "$want" "$@"
    UNDER_TEST=("${CEILING_PROCS[@]}")
    bench_url "ceiling $key|$route #$r" "$(ceiling_url "$key|$route")" "$bytes" "$want" "$@"
  done
  combine_rounds "$key|$route" "$want"
  combine_rounds "ceiling $key|$route" "$want"
}
combine_rounds() {
  local key=$1 want=$2 r k reqs=0 us=0 p99=0 errors=""
  for ((r = 1; r <= PAIR_ROUNDS; r++)); do
    k="$key #$r"
    reqs=$((reqs + REQUESTS[$k]))
    us=$(awk -v u="$us" -v n="${REQUESTS[$k]}" -v rps="${RPS[$k]}" 'BEGIN { printf "%.0f", u + n / rps * 1e6 }')
    p99=$(awk -v a="$p99" -v b="${P99[$k]}" 'BEGIN { print (b + 0 > a + 0) ? b : a }')
    [[ -z "${ERRORS[$k]}" ]] || errors+="${errors:+; }round $r: ${ERRORS[$k]}"
    unset "ERRORS[$k]"
  done
  REQUESTS[$key]=$reqs
  RPS[$key]=$(awk -v n="$reqs" -v us="$us" 'BEGIN { printf "%.0f", n / (us / 1e6) }')
  P99[$key]=$p99
  # bench_url checked that every answer of every round had the wanted status.
  STATUSES[$key]=${want:+$want:$reqs}
  ERRORS[$key]=$errors
  log "$(printf '%-58s %8s req/s   p99 %8s ms (%s rounds)' "$key" "${RPS[$key]}" "${P99[$key]}" "$PAIR_ROUNDS")"
}

log "A: wrk -t$THREADS -c$CONNECTIONS: the API's URL and its ceiling in turn, $PAIR_ROUNDS rounds of 1 s warm-up + $ROUND_S s each"
for route in "${ROUTES[@]}"; do
  measure_pair A "$route" "$BASE$route" "$(answer_bytes "$(body_file default "$route")")" ""
done
for route in "${COLLECTIONS[@]}"; do
  measure_pair gzip "$route" "$BASE$route" "$(answer_bytes "$(body_file gzip "$route")")" "" -H 'Accept-Encoding: gzip'
done
log "B: the same URLs with If-None-Match"
for route in "${ROUTES[@]}"; do
  if [[ "${B_STATE[$route]}" == ok ]]; then
    measure_pair B "$route" "$BASE$route" "$(answer_bytes "$(body_file not-modified "$route")")" 304 -H "If-None-Match: ${ETAG[$route]}"
  else
    log "B|$route: not measured: ${B_STATE[$route]}"
  fi
done
stop_pid "$CEILING_PID"
for p in "${CEILING_KIDS[@]}"; do stop_pid "$p"; done
stop_server default

# ---------------------------------------------------------------------------------------------
# C1: every page of the openings once, on a server started afresh (so none of them can come
# from its response cache)

# The size of the walk, from the first page.
info=$(node "$BENCH_DIR/util.js" page-info "$(body_file default "$OPENINGS_ROUTE")") \
  || die "$OPENINGS_ROUTE is not a page: $(head -c 200 "$(body_file default "$OPENINGS_ROUTE")")"
[[ "${info%% *}" == "$OPENINGS" ]] || die "$OPENINGS_ROUTE reports count ${info%% *}, expected $OPENINGS"
PAGE_SIZE=${info#* }
[[ "$PAGE_SIZE" -gt 0 ]] || die "$OPENINGS_ROUTE has no results"
LAST_PAGE=$(( (OPENINGS + PAGE_SIZE - 1) / PAGE_SIZE ))

prof_flags walk
start_server walk "C1 walk, then the first page of openings again" "$DB_URL" "" "${PROF_FLAGS[@]}"
log "server walk: startup $STARTUP_MS ms (pid ${SRV_PID[walk]}, port ${SRV_PORT[walk]})"
WBASE=$(base_of walk)
read -ra UNDER_TEST <<<"$(procs_of walk)"
WALK_URL="$WBASE$OPENINGS_ROUTE?page="
# The page after the last must not exist (an error answer is not cached; the walk itself checks
# that every page up to the last answers 200).
code=$(http_code "$WALK_URL$((LAST_PAGE + 1))")
[[ "$code" == 404 ]] || die "the page after the last ($WALK_URL$((LAST_PAGE + 1))) answered $code, expected 404: the page count is not $LAST_PAGE"

WALK_CONNECTIONS=1
log "C1: all $LAST_PAGE pages of $PAGE_SIZE openings once each, in a random order (seed $SEED), wrk -t$WALK_CONNECTIONS -c$WALK_CONNECTIONS, at most $WALK_LIMIT s"
run_walk walk "$WALK_URL" "$WALK_CONNECTIONS" "$WALK_LIMIT" WALK_PAGES="$LAST_PAGE"
WALK_COMPLETE=$([[ ${W_PAGES[walk]} -eq $LAST_PAGE ]] && echo yes || echo no)
[[ $WALK_COMPLETE == yes ]] || log "C1: the walk reached ${W_PAGES[walk]} of $LAST_PAGE pages in $WALK_LIMIT s (--walk-limit)"

# Then A's first page of openings again, with the walk's pages in the response cache: a fuller
# cache must not make its hits slower (no target; next to A's row in the report).
body=$(body_file walk "$OPENINGS_ROUTE")
check_url "$WBASE$OPENINGS_ROUTE" "$body"
cmp -s <(normalized "$(body_file default "$OPENINGS_ROUTE")" "${SRV_PORT[default]}") <(normalized "$body" "${SRV_PORT[walk]}") \
  || die "GET $OPENINGS_ROUTE sends different bytes after the walk than on the first server"
bench_url "after C1|$OPENINGS_ROUTE" "$WBASE$OPENINGS_ROUTE" "$(answer_bytes "$body")" ""
stop_server walk

# ---------------------------------------------------------------------------------------------
# C2 and the cache-off rows: a server with RESPONSE_CACHE_MB=0

if ! grep -q RESPONSE_CACHE_MB "$ROOT/src/config.ts" 2>/dev/null; then
  die "src/config.ts reads no RESPONSE_CACHE_MB: C2 needs a server without its response cache"
fi
prof_flags nocache
start_server nocache "C2 and the cache-off rows (RESPONSE_CACHE_MB=0)" "$DB_URL" "RESPONSE_CACHE_MB=0" "${PROF_FLAGS[@]}"
log "server nocache (RESPONSE_CACHE_MB=0): startup $STARTUP_MS ms (pid ${SRV_PID[nocache]}, port ${SRV_PORT[nocache]})"
NBASE=$(base_of nocache)
read -ra UNDER_TEST <<<"$(procs_of nocache)"
for route in "${ROUTES[@]}"; do
  body=$(body_file nocache "$route")
  check_url "$NBASE$route" "$body"
  cmp -s <(normalized "$(body_file default "$route")" "${SRV_PORT[default]}") <(normalized "$body" "${SRV_PORT[nocache]}") \
    || die "GET $route sends different bytes with the cache off than with the default configuration (compare $(basename "$(body_file default "$route")") and $(basename "$body") in $(rel "$WORK"))"
done

log "C2: page 1 and page $LAST_PAGE with the cache off, wrk -t1 -c1: 1 s warm-up + $DURATION s each"
for page in 1 "$LAST_PAGE"; do
  run_walk "page-$page-warmup" "$NBASE$OPENINGS_ROUTE?page=" 1 1 WALK_PAGE="$page"
  run_walk "page-$page" "$NBASE$OPENINGS_ROUTE?page=" 1 "$DURATION" WALK_PAGE="$page"
done
DEEP_RATIO=$(ratio "${W_P50[page-$LAST_PAGE]}" "${W_P50[page-1]}")

if [[ $UNCACHED -eq 1 ]]; then
  log "cache-off rows: wrk -t$THREADS -c$CONNECTIONS: 1 s warm-up + $DURATION s per URL"
  for route in "${ROUTES[@]}"; do
    bench_url "off|$route" "$NBASE$route" "$(answer_bytes "$(body_file nocache "$route")")" ""
  done
fi
stop_server nocache

# ---------------------------------------------------------------------------------------------
# D. Mixed load on a scratch copy of the dataset, two `serve` processes on it

check_idle "before the mixed load"
if [[ $ENGINE == sqlite ]]; then
  MIXED_DB="$WORK/mixed.sqlite"
  SCRATCH_FILES+=("$MIXED_DB")
  t0=$(now_ms)
  cp "$DB" "$MIXED_DB"
  [[ ! -f "$DB-wal" ]] || cp "$DB-wal" "$MIXED_DB-wal"
  MIXED_DB_URL="sqlite:$MIXED_DB"
  MIXED_COPY="a copy of the cached file, $(rel "$MIXED_DB") (copied in $(seconds_since "$t0") s, removed afterwards)"
else
  MIXED_DB_URL="${PG_URL%/*}/$(basename "${PG_URL##*/}")_mixed_$$"
  t0=$(now_ms)
  node "$BENCH_DIR/util.js" pg-clone-db "$DB" "$MIXED_DB_URL" >"$WORK/pg-clone-db.log" 2>&1 \
    || { cat "$WORK/pg-clone-db.log" >&2; die "could not copy $(safe_url "$DB") to $(safe_url "$MIXED_DB_URL") (CREATE DATABASE … TEMPLATE: is another session connected to $(safe_url "$DB")?)"; }
  SCRATCH_PG+=("$MIXED_DB_URL")
  MIXED_COPY="\`$(safe_url "$MIXED_DB_URL")\`, created from the cached database as its template (in $(seconds_since "$t0") s) and dropped afterwards"
fi
log "D: scratch database: $MIXED_COPY"
# The door token: its secret only in this variable and mixed.js's environment.
SECRET=$(env "${SERVER_ENV_UNSET[@]}" DATABASE_URL="$MIXED_DB_URL" LOG_LEVEL=warn node "$CLI" token create --name bench-mixed --scope door 2>"$WORK/token.log") \
  || { cat "$WORK/token.log" >&2; die "token create failed on the scratch database"; }
[[ "$SECRET" =~ ^[^[:space:]]+$ ]] || die "token create printed no single-word secret (see $(rel "$WORK")/token.log)"
start_server mixed-writer "D: readers' load and the posts" "$MIXED_DB_URL" ""
start_server mixed-other "D: cross-process reads" "$MIXED_DB_URL" ""
MBASE=$(base_of mixed-writer)
OBASE=$(base_of mixed-other)
read -ra UNDER_TEST <<<"$(procs_of mixed-writer) $(procs_of mixed-other)"
log "D: wrk -t$THREADS -c$CONNECTIONS readers on $OPENINGS_ROUTE of the first process for $MIXED_SECONDS s; a door post every $MIXED_INTERVAL_MS ms, each read back at once from both processes"
rfile="$WORK/wrk-mixed-readers.txt"
WRK_STATUSES=1 "${PIN_LOAD[@]}" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${MIXED_SECONDS}s" --timeout 10s -s "$BENCH_DIR/report.lua" "$MBASE$OPENINGS_ROUTE" >"$rfile" 2>&1 &
RPID=$!; PIDS+=("$RPID")
MIXED_RC=0
MIXED_TOKEN="$SECRET" "${PIN_LOAD[@]}" node "$BENCH_DIR/mixed.js" --seconds "$MIXED_SECONDS" --interval-ms "$MIXED_INTERVAL_MS" "$MBASE" "$OBASE" \
  >"$WORK/mixed.json" 2>"$WORK/mixed.log" || MIXED_RC=$?
SECRET=""
wait "$RPID" || { cat "$rfile" >&2; die "wrk (mixed readers) failed"; }
stop_pid "$RPID"
alive "${UNDER_TEST[@]}" || die "a server died during the mixed load: $(dead_report)"
line=$(grep -E '^RESULT ' "$rfile" | tail -n 1) || true
[[ -n "$line" ]] || { cat "$rfile" >&2; die "wrk printed no RESULT line for the mixed readers"; }
[[ "$(field "$line" statuses)" == "200:$(field "$line" requests)" ]] || die "mixed readers: not every answer was 200: statuses $(field "$line" statuses)"
M_RPS=$(awk -v n="$(field "$line" requests)" -v us="$(field "$line" duration_us)" 'BEGIN { printf "%.0f", n / (us / 1e6) }')
M_P99=$(us_to_ms "$(field "$line" p99_us)")
M_REQS=$(field "$line" requests)
[[ -s "$WORK/mixed.json" ]] || { cat "$WORK/mixed.log" >&2; die "mixed.js printed no summary (exit $MIXED_RC)"; }
# One line per server and one for the whole: "key=value ..." from mixed.js's JSON.
mapfile -t MIXED_LINES < <(node -e '
  const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  console.log(`posts=${s.posts} created=${s.created} late=${s.late_cycles} errors=${s.errors} seconds=${s.seconds} post_p50=${s.post_p50_ms} post_p99=${s.post_p99_ms}`);
  for (const v of s.servers) console.log(`role=${v.role} reads=${v.reads} stale=${v.stale} conditional=${v.conditional} c304=${v.conditional_304} cstale=${v.conditional_stale} skipped=${v.conditional_skipped} etags=${v.etags}`);
' "$WORK/mixed.json") || die "could not read $(rel "$WORK")/mixed.json"
M_SUM=${MIXED_LINES[0]}
M_STALE=0
for l in "${MIXED_LINES[@]:1}"; do M_STALE=$(( M_STALE + $(field "$l" stale) + $(field "$l" cstale) )); done
log "D: readers $M_RPS req/s, p99 $M_P99 ms; $(field "$M_SUM" created) of $(field "$M_SUM" posts) posts answered 201; stale reads: $M_STALE; errors: $(field "$M_SUM" errors)"
FAILURES=()
if [[ $MIXED_RC -ne 0 || $M_STALE -ne 0 || "$(field "$M_SUM" errors)" != 0 || "$(field "$M_SUM" created)" != "$(field "$M_SUM" posts)" ]]; then
  FAILURES+=("D: $M_STALE stale reads, $(field "$M_SUM" errors) errors, $(field "$M_SUM" created) of $(field "$M_SUM" posts) posts answered 201 (mixed.js exit $MIXED_RC; details in $(rel "$WORK")/mixed.json and mixed.log)")
fi
stop_server mixed-writer
stop_server mixed-other
drop_scratch

# ---------------------------------------------------------------------------------------------
# Report

STARTUP_MEDIAN=$(printf '%s\n' "${STARTUPS[@]}" | median)
STARTUP_OK=$(below "$STARTUP_MEDIAN" "$TARGET_STARTUP_MS")
VERDICTS=("$STARTUP_OK")
declare -A A_OK B_OK
for route in "${ROUTES[@]}"; do
  A_OK[$route]=$(at_least "$(ratio "${RPS[A|$route]}" "${RPS[ceiling A|$route]}")" "$TARGET_A_RATIO")
  VERDICTS+=("${A_OK[$route]}")
  if [[ "${B_STATE[$route]}" == ok ]]; then
    B_OK[$route]=$(at_least "$(ratio "${RPS[B|$route]}" "${RPS[ceiling B|$route]}")" "$TARGET_B_RATIO")
  else
    B_OK[$route]=MISSED
  fi
  VERDICTS+=("${B_OK[$route]}")
done
WALK_OK=$(below "${W_P50[walk]}" "$TARGET_WALK_P50_MS")
[[ $WALK_COMPLETE == yes ]] || WALK_OK="MISSED (incomplete walk)"
DEEP_OK=$(at_most "$DEEP_RATIO" "$TARGET_DEEP_RATIO")
RSS_MAX=0; RSS_MAX_NAME=""
for name in "${SERVERS[@]}"; do
  if awk -v a="${RSS_MB[$name]}" -v b="$RSS_MAX" 'BEGIN { exit !(a > b) }'; then RSS_MAX=${RSS_MB[$name]}; RSS_MAX_NAME=$name; fi
done
RSS_OK=$(below "$RSS_MAX" "$TARGET_RSS_MB")
VERDICTS+=("$WALK_OK" "$DEEP_OK" "$RSS_OK")
MISSED=0
for v in "${VERDICTS[@]}"; do [[ $v == ok ]] || MISSED=$((MISSED + 1)); done

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
ms() { [[ -n "$1" ]] && echo "$1 ms" || echo "—"; }
or_dash() { [[ -n "$1" ]] && echo "$1" || echo "—"; }

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
  echo "Load: \`wrk -t$THREADS -c$CONNECTIONS\`, the API's URL and its ceiling in turn, $PAIR_ROUNDS rounds of 1 s warm-up + $ROUND_S s each (req/s over all rounds, p99 the worst round's); the cache-off rows \`-d${DURATION}s\` after 1 s of warm-up (bench/report.lua: latencies from wrk's histogram; the bytes read are checked against the expected answer's size)."
  echo "Ceiling: a bare \`node:http\` server (bench/ceiling.js$([[ -z "$WORKERS" ]] || echo ", as $WORKERS node:cluster workers like the service")) answering precomputed bytes — the API's own status, headers and body for that request — measured with the same load in this run: the ceiling for Node on this machine; ratio = req/s ÷ that ceiling."
  [[ $CPU_PROF -eq 0 ]] || echo "**The servers of A, B, C1 and C2 ran under \`--cpu-prof\`: their numbers are slower than normal.**"
  echo
  echo "### A. First pages, repeated (response cache)"
  echo
  if [[ $UNCACHED -eq 1 ]]; then
    echo "| URL | req/s | p99 | ceiling req/s (same bytes + headers) | ratio | target ≥ $TARGET_A_RATIO | req/s, cache off | p99, cache off | ratio, cache off | body |"
    echo "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"
  else
    echo "| URL | req/s | p99 | ceiling req/s (same bytes + headers) | ratio | target ≥ $TARGET_A_RATIO | body |"
    echo "|---|---:|---:|---:|---:|---|---:|"
  fi
  for route in "${ROUTES[@]}"; do
    printf '| `%s` | %s | %s ms | %s | %s | %s |' "$route" "${RPS[A|$route]}" "${P99[A|$route]}" "${RPS[ceiling A|$route]}" \
      "$(ratio "${RPS[A|$route]}" "${RPS[ceiling A|$route]}")" "${A_OK[$route]}"
    if [[ $UNCACHED -eq 1 ]]; then
      printf ' %s | %s ms | %s |' "${RPS[off|$route]}" "${P99[off|$route]}" "$(ratio "${RPS[off|$route]}" "${RPS[ceiling A|$route]}")"
    fi
    printf ' %s B |\n' "${BODY_BYTES[$route]}"
  done
  echo
  k="after C1|$OPENINGS_ROUTE"
  echo "- \`$OPENINGS_ROUTE\` again on C1's server, after its walk left $LAST_PAGE more pages in its response cache: **${RPS[$k]} req/s**, p99 ${P99[$k]} ms, ratio **$(ratio "${RPS[$k]}" "${RPS[ceiling A|$OPENINGS_ROUTE]}")** (on the fresh server above: ${RPS[A|$OPENINGS_ROUTE]} req/s, ratio $(ratio "${RPS[A|$OPENINGS_ROUTE]}" "${RPS[ceiling A|$OPENINGS_ROUTE]}")); no target: a fuller cache should not make hits slower."
  echo
  echo "With \`Accept-Encoding: gzip\` (\`wrk -H\`), against a ceiling sending the same compressed bytes and headers (no target):"
  echo
  echo "| URL | Content-Encoding | req/s | p99 | ceiling req/s (same bytes + headers) | ratio | body sent | uncompressed |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
  for route in "${COLLECTIONS[@]}"; do
    printf '| `%s` | %s | %s | %s ms | %s | %s | %s B | %s B |\n' "$route" "${GZ_ENC[$route]:-none (identity)}" "${RPS[gzip|$route]}" "${P99[gzip|$route]}" \
      "${RPS[ceiling gzip|$route]}" "$(ratio "${RPS[gzip|$route]}" "${RPS[ceiling gzip|$route]}")" "${GZ_BYTES[$route]}" "${BODY_BYTES[$route]}"
  done
  echo
  echo "### B. Conditional GET: \`If-None-Match: <the URL's ETag>\` → 304"
  echo
  echo "Every answer under load must be \`304 Not Modified\` (counted per status by bench/report.lua). Ceiling: \`node:http\` answering 304 with the headers the API sent on its 304."
  echo
  echo "| URL | ETag | 304s / answers | req/s | p99 | ceiling req/s (304, same headers) | ratio | target ≥ $TARGET_B_RATIO |"
  echo "|---|---|---:|---:|---:|---:|---:|---|"
  for route in "${ROUTES[@]}"; do
    if [[ "${B_STATE[$route]}" == ok ]]; then
      printf '| `%s` | `%s` | %s / %s | %s | %s ms | %s | %s | %s |\n' "$route" "${ETAG[$route]}" "${STATUSES[B|$route]#304:}" "${REQUESTS[B|$route]}" \
        "${RPS[B|$route]}" "${P99[B|$route]}" "${RPS[ceiling B|$route]}" "$(ratio "${RPS[B|$route]}" "${RPS[ceiling B|$route]}")" "${B_OK[$route]}"
    else
      printf '| `%s` | %s | — | — | — | — | — | MISSED (%s) |\n' "$route" "$(or_dash "${ETAG[$route]:+\`${ETAG[$route]}\`}")" "${B_STATE[$route]}"
    fi
  done
  echo
  echo "### C. Uncached pages of openings"
  echo
  echo "Every one of the $LAST_PAGE pages (\`$OPENINGS_ROUTE?page=N\`, $PAGE_SIZE per page) asked once, in a random order (seed $SEED), on a server just started (default configuration; none of them was asked before, so none comes from the response cache); \`${W_WRK[walk]}\` (one connection: latency is service time, not queueing; timed by bench/walk.lua from request to complete answer, no coordinated-omission correction):"
  echo
  echo "| pages answered | p50 | p90 | p99 | max | req/s | target p50 < $TARGET_WALK_P50_MS ms |"
  echo "|---:|---:|---:|---:|---:|---:|---|"
  printf '| %s of %s%s | %s ms | %s ms | %s ms | %s ms | %s | %s |\n' "${W_PAGES[walk]}" "$LAST_PAGE" "$([[ $WALK_COMPLETE == yes ]] || echo " (stopped by --walk-limit $WALK_LIMIT s)")" \
    "${W_P50[walk]}" "${W_P90[walk]}" "${W_P99[walk]}" "${W_MAX[walk]}" "${W_RPS[walk]}" "$WALK_OK"
  echo
  echo "Page 1 against page $LAST_PAGE with the response cache off (\`RESPONSE_CACHE_MB=0\`: every request builds its page), \`wrk -t1 -c1 -d${DURATION}s\` each after 1 s of warm-up:"
  echo
  echo "| URL | requests | p50 | p90 | p99 | req/s |"
  echo "|---|---:|---:|---:|---:|---:|"
  for page in 1 "$LAST_PAGE"; do
    printf '| `%s?page=%s` | %s | %s ms | %s ms | %s ms | %s |\n' "$OPENINGS_ROUTE" "$page" "${W_PAGES[page-$page]}" "${W_P50[page-$page]}" "${W_P90[page-$page]}" "${W_P99[page-$page]}" "${W_RPS[page-$page]}"
  done
  echo
  echo "- p50 of page $LAST_PAGE ÷ p50 of page 1: **$DEEP_RATIO** — target ≤ $TARGET_DEEP_RATIO: $DEEP_OK"
  echo
  echo "### D. Mixed load: readers and door posts"
  echo
  echo "On $MIXED_COPY, with two \`serve\` processes. Readers: \`wrk -t$THREADS -c$CONNECTIONS -d${MIXED_SECONDS}s\` on \`$OPENINGS_ROUTE\` of the first process. Writer (bench/mixed.js): a door report every $MIXED_INTERVAL_MS ms to the first process (a change each time, with a \`door\` token), and after each 201, at once, on both processes: the first page (must show the opening just posted as \`results[0]\`, same time and is_open), and the first page with \`If-None-Match:\` the ETag that process sent before the post (must be 200 with the new opening, not 304)."
  echo
  echo "- Readers: **$M_RPS req/s**, p99 **$M_P99 ms** ($M_REQS answers, all 200)"
  echo "- Posts: **$(field "$M_SUM" created) of $(field "$M_SUM" posts) answered 201** in $(field "$M_SUM" seconds) s ($(field "$M_SUM" late) of them started late: the previous cycle overran its interval); post latency p50 $(field "$M_SUM" post_p50) ms, p99 $(field "$M_SUM" post_p99) ms; errors: $(field "$M_SUM" errors)"
  echo
  echo "| process | plain reads after a post | stale | conditional reads | answered 304 | stale (304 or old record) | skipped (no ETag before the post) |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for l in "${MIXED_LINES[@]:1}"; do
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$([[ "$(field "$l" role)" == writer ]] && echo "same process (under the readers' load)" || echo "other process")" \
      "$(field "$l" reads)" "$(field "$l" stale)" "$(field "$l" conditional)" "$(field "$l" c304)" "$(field "$l" cstale)" "$(field "$l" skipped)"
  done
  echo
  echo "- Stale reads: **$M_STALE** — must be 0: $([[ $M_STALE -eq 0 ]] && echo ok || echo FAILED)"
  echo
  echo "### E. Peak RSS of the server processes"
  echo
  echo "| server | what it served | VmHWM${WORKERS:+ (summed over primary and workers)} |"
  echo "|---|---|---:|"
  for name in "${SERVERS[@]}"; do
    printf '| %s | %s | %s MB%s |\n' "$name" "${SRV_ROLE[$name]}" "${RSS_MB[$name]}" "${RSS_PARTS[$name]:+ (${RSS_PARTS[$name]})}"
  done
  echo
  echo "- Highest: **$RSS_MAX MB** ($RSS_MAX_NAME) — target < $TARGET_RSS_MB MB: $RSS_OK"
  [[ $ENGINE == sqlite ]] || echo "- RSS counts the Node processes only: PostgreSQL's own memory (shared buffers, one backend per pooled connection) is not included."
  echo
  echo "### Verdicts"
  echo
  echo "- Startup to the first 200 on \`/api/\`$([[ -z "$WORKERS" ]] || echo " (from the primary's start to the first worker's answer)"): **$STARTUP_MEDIAN ms** median of 3 starts (${STARTUPS[*]} ms) — target < $TARGET_STARTUP_MS ms: $STARTUP_OK"
  echo "- A, ratio ≥ $TARGET_A_RATIO: $(for r in "${ROUTES[@]}"; do printf '`%s` %s, ' "$r" "${A_OK[$r]}"; done | sed 's/, $//')"
  echo "- B, ratio ≥ $TARGET_B_RATIO: $(for r in "${ROUTES[@]}"; do printf '`%s` %s, ' "$r" "${B_OK[$r]}"; done | sed 's/, $//')"
  echo "- C, walk p50 < $TARGET_WALK_P50_MS ms: ${W_P50[walk]} ms — $WALK_OK; page $LAST_PAGE ÷ page 1 ≤ $TARGET_DEEP_RATIO: $DEEP_RATIO — $DEEP_OK"
  echo "- D, stale reads = 0: $M_STALE — $([[ ${#FAILURES[@]} -eq 0 ]] && echo ok || echo FAILED)"
  echo "- E, peak RSS < $TARGET_RSS_MB MB: $RSS_MAX MB — $RSS_OK"
  echo
  echo "### Notes"
  echo
  echo "- Dataset build: $BUILD_NOTE"
  for key in "${!ERRORS[@]}"; do
    [[ -z "${ERRORS[$key]}" ]] || echo "- wrk socket errors on \`$key\`: ${ERRORS[$key]}"
  done
  [[ -z "$WORKERS" ]] || echo "- With workers, each worker's response cache fills on its own."
  echo "- CLI entry point: $CLI_ENTRY"
  echo "- Run time of this script: $RUNTIME_S s"
  echo "- CPU busy with other processes (1 s samples, all cores): $(IFS=';'; echo "${IDLE_CHECKS[*]}" | sed 's/;/, /g')$([[ $NOISY -eq 0 ]] || echo ' — **the machine was not idle: noisy results**')"
  echo "- Machine: $(nproc) cores${CPU_MODEL:+ ($CPU_MODEL)}, node $(node --version), $({ wrk --version 2>&1 || true; } | awk 'NR == 1 { print $1, $2 }'), commit $GIT_REV (when the run started)"
  echo "- CPU placement: $PLACEMENT"
  if [[ ${#FAILURES[@]} -gt 0 ]]; then
    echo
    echo "**Checks failed:**"
    for f in "${FAILURES[@]}"; do echo "- $f"; done
  fi
} >"$REPORT"

echo
cat "$REPORT"
echo
echo "(written to $(rel "$REPORT"); raw outputs in $(rel "$WORK")/)"

if [[ $CPU_PROF -eq 1 ]]; then
  for pass in "${PROF_SERVERS[@]}"; do
    # The main thread's profile is the biggest (tsx adds a loader thread with its own).
    prof=$(ls -S "${PROF_DIRS[$pass]}"/*.cpuprofile 2>/dev/null | head -n 1 || true)
    [[ -n "$prof" ]] || die "--cpu-prof: the '$pass' server wrote no profile to $(rel "${PROF_DIRS[$pass]}")"
    echo
    echo "CPU profile of the '$pass' server (startup and all its runs): $(rel "$prof") (open it in Chrome DevTools)"
    node "$BENCH_DIR/util.js" prof-top "$prof" || log "could not summarise the profile"
  done
fi

if [[ ${#FAILURES[@]} -gt 0 ]]; then
  echo
  for f in "${FAILURES[@]}"; do echo "read.sh: FAILED: $f" >&2; done
  exit 1
fi
if [[ $MISSED -gt 0 ]]; then
  echo
  echo "read.sh: $MISSED target(s) missed (see the verdicts above)" >&2
  exit 3
fi
