#!/usr/bin/env bash
# Read benchmark of the HTTP API on a large demo dataset.
#
#   bash bench/read.sh [--keep-db | --rebuild] [--duration S] [--cpu-prof]
#
# 1. builds (or reuses, from bench/out/) a SQLite database with the `demo` command:
#    2,000 users, 1,000,000 openings, 200 projects, 500 events, 300 meetings;
# 2. starts `hackerspace-api serve` and times the first answered request (3 starts, median);
# 3. measures req/s and p99 latency with wrk for the first page of every collection, /api/,
#    and /api/space/openings/?page=5000, plus a bare node:http server answering with the
#    same bytes (the ceiling for Node on this machine); times single page-5000 requests;
# 4. reads the server's peak RSS (VmHWM);
# 5. prints a Markdown report and writes it to bench/out/read-<date>.md.
#
# Options:
#   --keep-db      use the cached database as it is, without checking its sizes (never build)
#   --rebuild      build the database again even if the cached one has the right sizes
#   --duration S   seconds of measurement per URL (default 5; each URL also gets 1 s of warm-up)
#   --cpu-prof     run the benchmarked server under `node --cpu-prof` and print where its CPU
#                  time went (the profiler slows the server: numbers from such a run are not
#                  comparable to others)
#
# Environment (optional): BENCH_USERS, BENCH_OPENINGS, BENCH_PROJECTS, BENCH_EVENTS,
# BENCH_MEETINGS change the dataset (each size gets its own cached file); WRK_THREADS (1) and
# WRK_CONNECTIONS (32) change the load. wrk runs on one thread so the server keeps a core.
#
# Exit status: 0 when everything was measured and every target met; 1 on any failure (a command
# failed, a URL did not answer 200, the server died…); 3 when the measurements completed but a
# target was missed (startup < 1000 ms, page 5000 < 100 ms, peak RSS < 250 MB).
set -Eeuo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
OUT="$BENCH_DIR/out"
cd "$ROOT"

# ---------------------------------------------------------------------------------------------
# Options

DB_MODE=auto   # auto | keep | rebuild
DURATION=5
CPU_PROF=0

usage() { sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --keep-db) DB_MODE=keep ;;
    --rebuild) DB_MODE=rebuild ;;
    --duration)
      [[ $# -ge 2 ]] || { echo "read.sh: --duration needs a value" >&2; exit 2; }
      DURATION=$2; shift ;;
    --duration=*) DURATION=${1#*=} ;;
    --cpu-prof) CPU_PROF=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "read.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ "$DURATION" =~ ^[1-9][0-9]*$ ]] || { echo "read.sh: --duration expects whole seconds ≥ 1, got '$DURATION'" >&2; exit 2; }

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
TARGET_STARTUP_MS=1000
TARGET_DEEP_MS=100
TARGET_RSS_MB=250

mkdir -p "$OUT"
STAMP=$(date +%Y-%m-%d-%H%M%S)
WORK="$OUT/run-$STAMP"          # this run's logs, wrk outputs, bodies
mkdir -p "$WORK"
DB="$OUT/read-u$USERS-o$OPENINGS-p$PROJECTS-e$EVENTS-m$MEETINGS.sqlite"
META="$DB.meta"                  # written only after a successful build: build time, counts
REPORT="$OUT/read-$STAMP.md"

# ---------------------------------------------------------------------------------------------
# Logging, failure, cleanup

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '\nread.sh: FAILED: %s\n' "$*" >&2; exit 1; }

PIDS=()   # every background process this script started

stop_pid() {
  local pid=$1 i
  kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "process $pid ignored SIGTERM for 5 s; killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

forget_pid() {
  local pid=$1 kept=() p
  for p in "${PIDS[@]}"; do [[ "$p" == "$pid" ]] || kept+=("$p"); done
  PIDS=("${kept[@]}")
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  local pid
  for pid in "${PIDS[@]}"; do stop_pid "$pid"; done
  if [[ $rc -ne 0 && $rc -ne 3 ]]; then
    printf 'read.sh: exit status %s; logs in %s\n' "$rc" "${WORK#"$ROOT"/}" >&2
  fi
  exit "$rc"
}
trap cleanup EXIT
# A command that fails outside an explicit check still says what and where.
trap 'printf "read.sh: FAILED: line %s: %s (status %s)\n" "$LINENO" "$BASH_COMMAND" "$?" >&2' ERR
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------------------------
# Tools

ensure_wrk() {
  command -v wrk >/dev/null 2>&1 && return 0
  if [[ $EUID -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    log "wrk is missing; installing it with apt-get"
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y wrk >"$WORK/apt.log" 2>&1; then
      DEBIAN_FRONTEND=noninteractive apt-get update >>"$WORK/apt.log" 2>&1 || true
      DEBIAN_FRONTEND=noninteractive apt-get install -y wrk >>"$WORK/apt.log" 2>&1 \
        || die "could not install wrk with apt-get (see ${WORK#"$ROOT"/}/apt.log)"
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

# The configuration variables the server reads, other than the ones set here, are removed so
# that a developer's environment (PAGE_SIZE, PUBLIC_URL…) cannot change what is measured.
SERVER_ENV_UNSET=(-u PUBLIC_URL -u TRUST_PROXY -u TIME_ZONE -u PAGE_SIZE -u MAX_PAGE_SIZE
  -u AVATAR_FIELD -u AVATAR_HASH -u AVATAR_DEFAULT)

# ---------------------------------------------------------------------------------------------
# 1. The dataset

db_counts() { node "$BENCH_DIR/util.js" db-counts "$DB"; }
count_of() { local json=$1 key=$2; [[ "$json" =~ \"$key\":([0-9]+) ]] && echo "${BASH_REMATCH[1]}"; }
remove_db() { rm -f "$DB" "$DB-wal" "$DB-shm" "$DB-journal" "$META"; }

DEMO_ARGS=(--users "$USERS" --openings "$OPENINGS" --projects "$PROJECTS" --events "$EVENTS" --meetings "$MEETINGS" --replace)
BUILD_NOTE=""
BUILD_S=""

build_db() {
  remove_db
  log "building the dataset with: hackerspace-api demo ${DEMO_ARGS[*]}"
  local t0 t1 pid rc=0
  t0=$(now_ms)
  env "${SERVER_ENV_UNSET[@]}" DATABASE_URL="sqlite:$DB" LOG_LEVEL=warn \
    node bin/hackerspace-api.js demo "${DEMO_ARGS[@]}" >"$WORK/demo.log" 2>&1 &
  pid=$!; PIDS+=("$pid")
  wait "$pid" || rc=$?
  forget_pid "$pid"
  t1=$(now_ms)
  if [[ $rc -ne 0 ]]; then
    sed 's/^/    demo: /' "$WORK/demo.log" | tail -n 20 >&2
    remove_db
    die "the demo command failed (exit $rc) — is it implemented? (src/cli/demo.ts)"
  fi
  local counts
  counts=$(db_counts) || die "could not count the rows of the new database"
  local got_users got_openings
  got_users=$(count_of "$counts" users); got_openings=$(count_of "$counts" openings)
  if [[ "$got_users" != "$USERS" || "$got_openings" != "$OPENINGS" ]]; then
    remove_db
    die "demo built $got_users users and $got_openings openings; expected $USERS and $OPENINGS ($counts)"
  fi
  local k want got
  for k in projects events meetings; do
    want=${k^^}; want=${!want}; got=$(count_of "$counts" "$k")
    [[ "$got" == "$want" ]] || log "note: demo built $got $k (asked for $want)"
  done
  BUILD_S=$(awk -v ms=$((t1 - t0)) 'BEGIN { printf "%.1f", ms / 1000 }')
  printf 'args=%s\ncounts=%s\nbuild_s=%s\nbuilt_at=%s\ncommit=%s\n' \
    "${DEMO_ARGS[*]}" "$counts" "$BUILD_S" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(git_rev)" >"$META"
  DB_COUNTS=$counts
  BUILD_NOTE="built in $BUILD_S s (this run)"
  log "dataset built in $BUILD_S s: $counts"
}

meta_field() { [[ -f "$META" ]] || return 0; sed -n "s/^$1=//p" "$META" | head -n 1; }
git_rev() {
  local rev
  rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) || { echo unknown; return; }
  [[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]] || rev="$rev+changes"
  echo "$rev"
}

DB_COUNTS=""
case "$DB_MODE" in
  rebuild) build_db ;;
  keep)
    [[ -f "$DB" ]] || die "--keep-db: there is no cached database at ${DB#"$ROOT"/}; run without --keep-db to build it"
    DB_COUNTS=$(db_counts) || die "--keep-db: cannot read ${DB#"$ROOT"/}"
    BUILD_S=$(meta_field build_s)
    BUILD_NOTE="reused as is (--keep-db)${BUILD_S:+; built in $BUILD_S s on $(meta_field built_at)}"
    log "using the cached database as is: $DB_COUNTS"
    ;;
  auto)
    if [[ -f "$DB" && -f "$META" && "$(meta_field args)" == "${DEMO_ARGS[*]}" ]] \
       && DB_COUNTS=$(db_counts 2>/dev/null) && [[ "$DB_COUNTS" == "$(meta_field counts)" ]]; then
      BUILD_S=$(meta_field build_s)
      BUILD_NOTE="reused the cached database (built in $BUILD_S s on $(meta_field built_at); --rebuild to time a new build)"
      log "reusing the cached database: $DB_COUNTS"
    else
      build_db
    fi
    ;;
esac

# ---------------------------------------------------------------------------------------------
# 2. The server and its startup time

SERVER_PID=""
SERVER_PORT=""
SERVER_LOG=""

# http_code URL [OUTPUT-FILE [HEADERS-FILE]]: the status code, 000 when nothing answered.
http_code() {
  local url=$1 out=${2:-/dev/null} headers=${3:-/dev/null}
  curl -sS -o "$out" -D "$headers" -w '%{http_code}' --max-time 10 "$url" 2>/dev/null || true
}

# start_server NAME [NODE FLAGS...]: starts it, waits for /api/ to answer 200, sets STARTUP_MS.
start_server() {
  local name=$1; shift
  SERVER_PORT=$(node "$BENCH_DIR/util.js" free-port) || die "could not find a free port"
  SERVER_LOG="$WORK/$name.log"
  local url="http://127.0.0.1:$SERVER_PORT/api/" t0 code deadline
  t0=$(now_ms)
  env "${SERVER_ENV_UNSET[@]}" DATABASE_URL="sqlite:$DB" HOST=127.0.0.1 PORT="$SERVER_PORT" LOG_LEVEL=warn \
    node "$@" bin/hackerspace-api.js serve >"$SERVER_LOG" 2>&1 &
  SERVER_PID=$!; PIDS+=("$SERVER_PID")
  deadline=$((t0 + 30000))
  while :; do
    code=$(http_code "$url")
    [[ "$code" == 200 ]] && break
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      sed 's/^/    server: /' "$SERVER_LOG" | tail -n 20 >&2
      die "the server exited during startup (log: ${SERVER_LOG#"$ROOT"/})"
    fi
    if (( $(now_ms) > deadline )); then
      die "the server did not answer 200 on $url within 30 s (last status $code; log: ${SERVER_LOG#"$ROOT"/})"
    fi
    sleep 0.005
  done
  STARTUP_MS=$(( $(now_ms) - t0 ))
}

stop_server() {
  [[ -n "$SERVER_PID" ]] || return 0
  stop_pid "$SERVER_PID"; forget_pid "$SERVER_PID"; SERVER_PID=""
}

# bin/hackerspace-api.js runs dist/hackerspace-api.mjs when that bundle is at least as new as
# every file under src/, and the sources through tsx otherwise; startup differs a lot, so the
# report says which one (judged the same way, from modification times).
cli_entry() {
  local bundle="$ROOT/dist/hackerspace-api.mjs"
  if [[ ! -f "$bundle" ]]; then
    echo "TypeScript sources through tsx (no dist/ bundle)"
  elif [[ -n "$(find "$ROOT/src" -type f -newer "$bundle" -print -quit)" ]]; then
    echo "TypeScript sources through tsx (dist/ bundle older than src/)"
  else
    echo "dist/hackerspace-api.mjs bundle"
  fi
}
CLI_ENTRY=$(cli_entry)

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
check_idle() {
  local pct; pct=$(busy_pct)
  IDLE_CHECKS+=("$1: $pct%")
  if [[ "$pct" != '?' && "$pct" -gt 15 ]]; then
    log "WARNING: the CPUs were $pct% busy $1 with nothing of this script running: other processes are competing, results will be noisy"
    NOISY=1
  fi
}
IDLE_CHECKS=()
NOISY=0
check_idle "before the server starts"
log "the CLI will run: $CLI_ENTRY"

# Two throw-away starts, then the one that gets benchmarked: the median of the three is reported.
STARTUPS=()
for i in 1 2; do
  start_server "startup-$i"
  STARTUPS+=("$STARTUP_MS")
  log "startup $i: $STARTUP_MS ms to the first 200 on /api/"
  stop_server
done
SERVER_FLAGS=()
PROF_DIR=""
if [[ $CPU_PROF -eq 1 ]]; then
  PROF_DIR="$WORK/cpu-prof"; mkdir -p "$PROF_DIR"
  SERVER_FLAGS=(--cpu-prof --cpu-prof-dir="$PROF_DIR")
fi
start_server server "${SERVER_FLAGS[@]}"
STARTUPS+=("$STARTUP_MS")
log "startup 3: $STARTUP_MS ms (this server is benchmarked; pid $SERVER_PID, port $SERVER_PORT)"
STARTUP_MEDIAN=$(printf '%s\n' "${STARTUPS[@]}" | median)
BASE="http://127.0.0.1:$SERVER_PORT"

# ---------------------------------------------------------------------------------------------
# 3. Every URL answers 200 with JSON before anything is measured

ROUTES=(/api/users/ /api/space/openings/ /api/projects/ /api/meetings/ /api/events/ /api/ "/api/space/openings/?page=$DEEP_PAGE")

slug() { local s=${1//[^a-zA-Z0-9]/_}; echo "${s#_}"; }
body_file_of() { echo "$WORK/body-$(slug "$1").json"; }

check_url() {
  local url=$1 body=$2 headers=${3:-/dev/null} code
  code=$(http_code "$url" "$body" "$headers")
  if [[ "$code" != 200 ]]; then
    head -c 500 "$body" 2>/dev/null | sed 's/^/    body: /' >&2 || true
    die "GET $url answered ${code/#000/nothing} instead of 200"
  fi
  [[ -s "$body" && "$(head -c 1 "$body")" == "{" ]] || die "GET $url answered 200 but not with a JSON object"
}

declare -A BYTES
for route in "${ROUTES[@]}"; do
  check_url "$BASE$route" "$(body_file_of "$route")" "$(body_file_of "$route").headers"
  BYTES[$route]=$(wc -c <"$(body_file_of "$route")" | tr -d ' ')
done
OPENINGS_BODY=$(body_file_of /api/space/openings/)
OPENINGS_BYTES=$(wc -c <"$OPENINGS_BODY" | tr -d ' ')
grep -q '"count":'"$OPENINGS"'[,}]' "$OPENINGS_BODY" \
  || die "/api/space/openings/ does not report count $OPENINGS: $(head -c 200 "$OPENINGS_BODY")"
log "all ${#ROUTES[@]} URLs answer 200; the openings first page is $OPENINGS_BYTES bytes"

# Single requests to the deep page, one after the other on fresh connections (curl's own
# start-up is not included: time_total starts when curl starts resolving the name).
DEEP_URL="$BASE/api/space/openings/?page=$DEEP_PAGE"
DEEP_TIMES=()
for i in $(seq 1 20); do
  t=$(curl -sS -o /dev/null -w '%{http_code} %{time_total}' --max-time 30 "$DEEP_URL") || die "GET $DEEP_URL failed"
  [[ "${t%% *}" == 200 ]] || die "GET $DEEP_URL answered ${t%% *}"
  DEEP_TIMES+=("$(awk -v s="${t#* }" 'BEGIN { printf "%.2f", s * 1000 }')")
done
DEEP_MEDIAN=$(printf '%s\n' "${DEEP_TIMES[@]}" | median)
DEEP_MIN=$(printf '%s\n' "${DEEP_TIMES[@]}" | sort -g | head -n 1)
DEEP_MAX=$(printf '%s\n' "${DEEP_TIMES[@]}" | sort -g | tail -n 1)
log "page $DEEP_PAGE single requests: median $DEEP_MEDIAN ms (first ${DEEP_TIMES[0]}, min $DEEP_MIN, max $DEEP_MAX)"

# ---------------------------------------------------------------------------------------------
# wrk

# to_ms "12.34ms" → 12.34 (wrk prints us, ms, s or m)
to_ms() {
  awk -v v="$1" 'BEGIN {
    if (match(v, /^[0-9.]+/)) { n = substr(v, 1, RLENGTH); u = substr(v, RLENGTH + 1) } else exit 1
    f = (u == "us") ? 0.001 : (u == "ms") ? 1 : (u == "s") ? 1000 : (u == "m") ? 60000 : -1
    if (f < 0) exit 1
    printf "%.2f", n * f }'
}

declare -A RPS P99 ERRORS
# bench_url LABEL URL PID: warm-up, measurement, parse; fails on non-2xx answers or a dead server.
bench_url() {
  local label=$1 url=$2 pid=$3 file
  file="$WORK/wrk-$(slug "$label").txt"
  wrk -t"$THREADS" -c"$CONNECTIONS" -d1s --timeout 10s "$url" >"$file.warmup" 2>&1 \
    || { cat "$file.warmup" >&2; die "wrk (warm-up) failed on $url"; }
  # The server still works through the requests wrk abandoned at the end of the warm-up; one
  # request of our own queues behind them, so the measurement starts with an idle server.
  kill -0 "$pid" 2>/dev/null || die "the process under test died during the warm-up on $url"
  [[ "$(http_code "$url")" == 200 ]] || die "$url stopped answering 200 after the warm-up"
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s --latency "$url" >"$file" 2>&1 \
    || { cat "$file" >&2; die "wrk failed on $url"; }
  kill -0 "$pid" 2>/dev/null || die "the server under test died during the run on $url"
  local bad
  for f in "$file.warmup" "$file"; do
    bad=$(sed -n 's/^ *Non-2xx or 3xx responses: *//p' "$f")
    [[ -z "$bad" ]] || { cat "$f" >&2; die "$url: $bad answers were not 2xx/3xx under load"; }
  done
  local rps p99raw
  rps=$(awk '/^Requests\/sec:/ { print $2 }' "$file")
  p99raw=$(awk '/^ +99%/ { print $2 }' "$file")
  [[ -n "$rps" && -n "$p99raw" ]] || { cat "$file" >&2; die "could not read wrk's output for $url"; }
  RPS[$label]=$(awk -v r="$rps" 'BEGIN { printf "%.0f", r }')
  P99[$label]=$(to_ms "$p99raw") || die "unexpected latency '$p99raw' from wrk for $url"
  ERRORS[$label]=$(sed -n 's/^ *Socket errors: *//p' "$file")
  [[ "${RPS[$label]}" -gt 0 ]] || { cat "$file" >&2; die "$url: no request completed in $DURATION s (server stuck, or the machine far too busy)"; }
  log "$(printf '%-36s %8s req/s   p99 %8s ms%s' "$label" "${RPS[$label]}" "${P99[$label]}" "${ERRORS[$label]:+   socket errors: ${ERRORS[$label]}}")"
}

log "wrk -t$THREADS -c$CONNECTIONS: 1 s warm-up + $DURATION s per URL, $(( ${#ROUTES[@]} + 1 )) URLs"
for route in "${ROUTES[@]}"; do
  bench_url "$route" "$BASE$route" "$SERVER_PID"
done

# ---------------------------------------------------------------------------------------------
# 4. Peak RSS of the server under test (before stopping it)

HWM_KB=$(awk '/^VmHWM:/ { print $2 }' "/proc/$SERVER_PID/status" 2>/dev/null || true)
[[ -n "$HWM_KB" ]] || die "could not read VmHWM of the server (pid $SERVER_PID)"
RSS_MB=$(awk -v kb="$HWM_KB" 'BEGIN { printf "%.1f", kb / 1024 }')
log "server peak RSS (VmHWM): $RSS_MB MB"
[[ ! -s "$SERVER_LOG" ]] || log "note: the server wrote to its log (LOG_LEVEL=warn): ${SERVER_LOG#"$ROOT"/}"
stop_server

# ---------------------------------------------------------------------------------------------
# The ceiling: node:http answering with the openings first page's bytes and headers

check_idle "between the API and the ceiling"
CEILING_LABEL="node:http ceiling"
BYTES[$CEILING_LABEL]=$OPENINGS_BYTES
CEILING_PORT=$(node "$BENCH_DIR/util.js" free-port) || die "could not find a free port"
node "$BENCH_DIR/ceiling.js" "$CEILING_PORT" "$OPENINGS_BODY" "$OPENINGS_BODY.headers" >"$WORK/ceiling.log" 2>&1 &
CEILING_PID=$!; PIDS+=("$CEILING_PID")
deadline=$(( $(now_ms) + 10000 ))
until [[ "$(http_code "http://127.0.0.1:$CEILING_PORT/")" == 200 ]]; do
  kill -0 "$CEILING_PID" 2>/dev/null || { cat "$WORK/ceiling.log" >&2; die "the ceiling server exited"; }
  (( $(now_ms) < deadline )) || die "the ceiling server did not answer within 10 s"
  sleep 0.02
done
check_url "http://127.0.0.1:$CEILING_PORT/" "$WORK/ceiling-body.json"
cmp -s "$WORK/ceiling-body.json" "$OPENINGS_BODY" || die "the ceiling server does not send the openings page's bytes"
bench_url "$CEILING_LABEL" "http://127.0.0.1:$CEILING_PORT/" "$CEILING_PID"
stop_pid "$CEILING_PID"; forget_pid "$CEILING_PID"
CEILING_RPS=${RPS[$CEILING_LABEL]}

# ---------------------------------------------------------------------------------------------
# 5. Report

verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v < t) ? "ok" : "MISSED" }'; }
STARTUP_OK=$(verdict "$STARTUP_MEDIAN" "$TARGET_STARTUP_MS")
DEEP_OK=$(verdict "$DEEP_MEDIAN" "$TARGET_DEEP_MS")
RSS_OK=$(verdict "$RSS_MB" "$TARGET_RSS_MB")

CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
{
  echo "## Read benchmark — $(date '+%Y-%m-%d %H:%M:%S %Z')"
  echo
  echo "Dataset: $(count_of "$DB_COUNTS" users) users, $(count_of "$DB_COUNTS" openings) openings, $(count_of "$DB_COUNTS" projects) projects, $(count_of "$DB_COUNTS" events) events, $(count_of "$DB_COUNTS" meetings) meetings (\`demo ${DEMO_ARGS[*]}\`)."
  echo "Load: \`wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s --latency\` after 1 s of warm-up, per URL. Ceiling: bare \`node:http\` sending the openings first page's bytes ($OPENINGS_BYTES B) and headers."
  [[ $CPU_PROF -eq 0 ]] || echo "**The server ran under \`--cpu-prof\`: these numbers are slower than normal.**"
  echo
  echo "| route | req/s | p99 | ratio to ceiling | body |"
  echo "|---|---:|---:|---:|---:|"
  for route in "${ROUTES[@]}" "$CEILING_LABEL"; do
    ratio=$(awk -v a="${RPS[$route]}" -v b="$CEILING_RPS" 'BEGIN { printf "%.3f", a / b }')
    printf '| `%s` | %s | %s ms | %s | %s B |\n' "$route" "${RPS[$route]}" "${P99[$route]}" "$ratio" "${BYTES[$route]}"
  done
  echo
  echo "- Startup to the first 200 on \`/api/\`: **$STARTUP_MEDIAN ms** median of 3 starts (${STARTUPS[*]} ms) — target < $TARGET_STARTUP_MS ms: $STARTUP_OK"
  echo "- \`/api/space/openings/?page=$DEEP_PAGE\` single request: **$DEEP_MEDIAN ms** median of 20 sequential (first ${DEEP_TIMES[0]}, min $DEEP_MIN, max $DEEP_MAX ms) — target < $TARGET_DEEP_MS ms: $DEEP_OK"
  echo "- Peak RSS of the server (VmHWM, after all runs): **$RSS_MB MB** — target < $TARGET_RSS_MB MB: $RSS_OK"
  echo "- Dataset build: ${BUILD_NOTE}"
  for route in "${ROUTES[@]}" "$CEILING_LABEL"; do
    [[ -z "${ERRORS[$route]}" ]] || echo "- wrk socket errors on \`$route\`: ${ERRORS[$route]}"
  done
  echo "- CLI entry point: $CLI_ENTRY"
  echo "- CPU busy with other processes (1 s samples, all cores): $(IFS=';'; echo "${IDLE_CHECKS[*]}" | sed 's/;/, /g')$([[ $NOISY -eq 0 ]] || echo ' — **the machine was not idle: noisy results**')"
  echo "- Machine: $(nproc) cores${CPU_MODEL:+ ($CPU_MODEL)}, node $(node --version), $({ wrk --version 2>&1 || true; } | awk 'NR == 1 { print $1, $2 }'), commit $(git_rev)"
} >"$REPORT"

echo
cat "$REPORT"
echo
echo "(written to ${REPORT#"$ROOT"/}; raw outputs in ${WORK#"$ROOT"/}/)"

if [[ $CPU_PROF -eq 1 ]]; then
  prof=$(ls -t "$PROF_DIR"/*.cpuprofile 2>/dev/null | head -n 1 || true)
  if [[ -n "$prof" ]]; then
    echo
    echo "CPU profile of the benchmarked server: ${prof#"$ROOT"/} (open it in Chrome DevTools)"
    node "$BENCH_DIR/util.js" prof-top "$prof" 25 || log "could not summarise the profile"
  else
    die "--cpu-prof: the server wrote no profile to ${PROF_DIR#"$ROOT"/}"
  fi
fi

if [[ "$STARTUP_OK$DEEP_OK$RSS_OK" != okokok ]]; then
  echo
  echo "read.sh: a target was missed (see above)" >&2
  exit 3
fi
