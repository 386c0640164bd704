#!/usr/bin/env bash
# Push-stream benchmark: many idle Server-Sent Events clients on GET /api/space/stream/, then door
# posts; how long until the LAST client has each change, and the server's memory meanwhile.
#
#   bash bench/stream.sh [--db sqlite|postgres|both] [--clients N] [--posts N] [--keep-db]
#
# For each engine (both by default, SQLite first):
# 1. a scratch database filled by `demo` (200 users, 100,000 openings, a few projects, events and
#    meetings): a SQLite file under bench/out/, or a new PostgreSQL database
#    hackerspace_bench_stream_<pid> on BENCH_POSTGRES_SERVER; removed or dropped at the end, also
#    on failure (unless --keep-db);
# 2. a door token (its secret stays in this script's memory and reaches the helper through its
#    environment);
# 3. two `hackerspace-api serve` processes, A and B, on that database, then two runs of
#    bench/stream-clients.js (--clients connections, default 1000, each its own socket; then
#    --posts door reports, default 20, one at a time):
#      same process    clients on A, posts to A: the committing process tells its clients itself
#      cross-process   clients on B, posts to A: PostgreSQL NOTIFY, or SQLite's poll of
#                      PRAGMA data_version (every STREAM_POLL_MS, default 100 ms)
#    Latency is from the door post's response (fully received) to the moment the last client has
#    the event, p50 and p99 over the posts; a negative figure means the clients had the event
#    before the poster had its answer (the event leaves right after the commit). Memory is the
#    stream server's VmRSS before the clients connect and with all of them connected, and its
#    VmHWM after the posts;
# 4. prints a Markdown table, also written to bench/out/stream-<date>-<engines>.md (logs in
#    bench/out/stream-run-<date>/; bench/out/ is git-ignored).
#
# Targets (same-process rows): p99 under 250 ms, RSS under 300 MB.
#
# Options:
#   --db ENGINE    sqlite, postgres or both (default)
#   --clients N    stream clients per run (default 1000); the open-files limit is raised to fit
#   --posts N      door posts per run (default 20)
#   --keep-db      keep the scratch databases instead of removing them
#
# Environment (optional): BENCH_POSTGRES_SERVER (default postgres://postgres@127.0.0.1:5432), a
# role that may create databases.
#
# Exit status: 0 when every run completed without error and met the targets; 1 otherwise (a
# command failed, a server died, a client missed an event or got one twice, a post was not 201,
# a target missed). The table is printed whenever the runs completed.
set -Eeuo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
SCRIPT_NAME=stream.sh
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"   # log, die, rel, safe_url, stop_pid
OUT="$BENCH_DIR/out"
cd "$ROOT"

ENGINES_OPT=both
CLIENTS=1000
POSTS=20
KEEP_DB=0

usage() { sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }
need_value() { [[ $1 -ge 2 ]] || { echo "stream.sh: $2 needs a value" >&2; exit 2; }; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --db) need_value $# "$1"; ENGINES_OPT=$2; shift ;;
    --db=*) ENGINES_OPT=${1#*=} ;;
    --clients) need_value $# "$1"; CLIENTS=$2; shift ;;
    --clients=*) CLIENTS=${1#*=} ;;
    --posts) need_value $# "$1"; POSTS=$2; shift ;;
    --posts=*) POSTS=${1#*=} ;;
    --keep-db) KEEP_DB=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "stream.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$ENGINES_OPT" in
  sqlite) ENGINES=(sqlite) ;;
  postgres|postgresql|pg) ENGINES=(postgres); ENGINES_OPT=postgres ;;
  both) ENGINES=(sqlite postgres) ;;
  *) echo "stream.sh: --db expects sqlite, postgres or both, got '$ENGINES_OPT'" >&2; exit 2 ;;
esac
[[ "$CLIENTS" =~ ^[1-9][0-9]*$ ]] || { echo "stream.sh: --clients expects a whole number ≥ 1, got '$CLIENTS'" >&2; exit 2; }
[[ "$POSTS" =~ ^[1-9][0-9]*$ ]] || { echo "stream.sh: --posts expects a whole number ≥ 1, got '$POSTS'" >&2; exit 2; }
PG_SERVER=${BENCH_POSTGRES_SERVER:-postgres://postgres@127.0.0.1:5432}
PG_SERVER=${PG_SERVER%/}
[[ "$PG_SERVER" =~ ^postgres(ql)?://[^/]+$ ]] || { echo "stream.sh: BENCH_POSTGRES_SERVER must look like postgres://user@host:port (no database)" >&2; exit 2; }

mkdir -p "$OUT"
STAMP=$(date +%Y-%m-%d-%H%M%S)
WORK="$OUT/stream-run-$STAMP"
mkdir -p "$WORK"
REPORT="$OUT/stream-$STAMP-$ENGINES_OPT.md"


PIDS=()
SCRATCH_PG=()
SCRATCH_FILES=()


cleanup() {
  local rc=$? pid url f
  trap - EXIT INT TERM ERR
  for pid in "${PIDS[@]}"; do stop_pid "$pid"; done
  for url in "${SCRATCH_PG[@]}"; do
    if [[ $KEEP_DB -eq 1 ]]; then log "kept the scratch database $(safe_url "$url") (--keep-db)"
    elif node "$BENCH_DIR/write-util.js" pg-drop-db "$url" >>"$WORK/cleanup.log" 2>&1; then log "dropped the scratch database $(safe_url "$url")"
    else log "WARNING: could not drop the scratch database $(safe_url "$url") (see $(rel "$WORK")/cleanup.log)"; fi
  done
  for f in "${SCRATCH_FILES[@]}"; do
    if [[ $KEEP_DB -eq 1 ]]; then log "kept the scratch database $(rel "$f") (--keep-db)"
    else rm -f "$f" "$f-wal" "$f-shm" "$f-journal"; fi
  done
  [[ $rc -eq 0 ]] || printf 'stream.sh: exit status %s; logs in %s\n' "$rc" "$(rel "$WORK")" >&2
  exit "$rc"
}
trap cleanup EXIT
trap 'printf "stream.sh: FAILED: line %s: %s (status %s)\n" "$LINENO" "$BASH_COMMAND" "$?" >&2' ERR
trap 'exit 130' INT
trap 'exit 143' TERM

for tool in node curl awk; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is required but not on PATH"
done

# Every client is a socket in the helper and one in the server (each its own process, but the
# limit is inherited): raise the soft limit to fit, up to the hard one.
NEED_FILES=$(( CLIENTS + 1024 ))
if (( $(ulimit -n) < NEED_FILES )); then
  ulimit -n "$NEED_FILES" 2>/dev/null || ulimit -n "$(ulimit -Hn)"
fi
(( $(ulimit -n) >= NEED_FILES )) || die "$CLIENTS clients need $NEED_FILES open files per process, but the hard limit is $(ulimit -Hn) (raise it, or use fewer --clients)"

# The server's configuration variables other than the ones set here are removed, so that a
# developer's environment (webhooks, a short heartbeat…) cannot change what is measured.
SERVER_ENV_UNSET=()
for v in $(grep -oE "env\.[A-Z_]+|env, '[A-Z_]+'" "$ROOT/src/config.ts" | grep -oE '[A-Z][A-Z_]+' | sort -u); do
  case "$v" in DATABASE_URL|HOST|PORT|LOG_LEVEL) ;; *) SERVER_ENV_UNSET+=(-u "$v") ;; esac
done

# The bundle, as `npm start` runs it (built now when older than src/).
if [[ ! -f "$ROOT/dist/hackerspace-api.mjs" || -n "$(find "$ROOT/src" -type f -newer "$ROOT/dist/hackerspace-api.mjs" -print -quit)" ]]; then
  log "building dist/ (npm run build)"
  npm run --silent build >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log" >&2; die "npm run build failed"; }
fi
CLI="$WORK/hackerspace-api.mjs"
cp "$ROOT/dist/hackerspace-api.mjs" "$CLI"

cli() {
  local db_url=$1; shift
  env "${SERVER_ENV_UNSET[@]}" DATABASE_URL="$db_url" LOG_LEVEL=warn node "$CLI" "$@" 2>>"$WORK/cli.log"
}

now_ms() { local t=${EPOCHREALTIME/,/.}; echo $(( ${t%.*} * 1000 + 10#${t#*.} / 1000 )); }
free_port() { node "$BENCH_DIR/util.js" free-port || die "could not find a free port"; }

SERVER_PID=""
SERVER_PORT=""
start_server() {
  local db_url=$1 name=$2 deadline code
  SERVER_PORT=$(free_port)
  env "${SERVER_ENV_UNSET[@]}" DATABASE_URL="$db_url" HOST=127.0.0.1 PORT="$SERVER_PORT" LOG_LEVEL=warn \
    node "$CLI" serve >"$WORK/$name.log" 2>&1 &
  SERVER_PID=$!; PIDS+=("$SERVER_PID")
  deadline=$(( $(now_ms) + 30000 ))
  while code=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$SERVER_PORT/api/" 2>/dev/null || true); [[ "$code" != 200 ]]; do
    kill -0 "$SERVER_PID" 2>/dev/null || { tail -n 20 "$WORK/$name.log" >&2; die "$name exited during startup"; }
    (( $(now_ms) < deadline )) || die "$name did not answer 200 within 30 s"
    sleep 0.05
  done
}

ROWS=()
FAILURES=()
declare -A MEASURED

# run ENGINE LABEL STREAM-PORT POST-PORT STREAM-PID
run() {
  local engine=$1 label=$2 stream_port=$3 post_port=$4 pid=$5 file="$WORK/$1-${2// /-}.json" line
  log "$engine, $label: $CLIENTS clients, $POSTS posts"
  if ! DOOR_TOKEN="$SECRET" node "$BENCH_DIR/stream-clients.js" --stream "http://127.0.0.1:$stream_port" --post "http://127.0.0.1:$post_port" \
      --clients "$CLIENTS" --posts "$POSTS" --server-pid "$pid" >"$file" 2>"$WORK/$engine-${label// /-}.stderr"; then
    cat "$file" "$WORK/$engine-${label// /-}.stderr" >&2 || true
    die "$engine, $label: the run reported errors (above)"
  fi
  kill -0 "$pid" 2>/dev/null || die "$engine, $label: the stream server died"
  line=$(node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const mb = (kb) => (kb / 1024).toFixed(1) + " MB";
    const ms = (x) => x.toFixed(1) + " ms";
    console.log([r.clients, r.posts, ms(r.connect_ms), ms(r.p50_from_response_ms), ms(r.p99_from_response_ms), ms(r.p50_from_request_ms), ms(r.p99_from_request_ms), ms(r.p50_post_ms), mb(r.rss_idle_kb), mb(r.rss_connected_kb), mb(r.hwm_kb)].join(" | "));
    console.log(r.p99_from_response_ms, r.rss_connected_kb, r.hwm_kb);
  ' "$file")
  ROWS+=("| $engine | $label | $(head -n 1 <<<"$line") |")
  MEASURED["$engine|$label"]=$(tail -n 1 <<<"$line")
}

for engine in "${ENGINES[@]}"; do
  if [[ $engine == sqlite ]]; then
    DB_FILE="$WORK/stream-bench.sqlite"
    SCRATCH_FILES+=("$DB_FILE")
    DB_URL="sqlite:$DB_FILE"
  else
    DB_URL="$PG_SERVER/hackerspace_bench_stream_$$"
    node "$BENCH_DIR/write-util.js" pg-new-db "$DB_URL" >>"$WORK/cli.log" 2>&1 || die "could not create $(safe_url "$DB_URL") (see $(rel "$WORK")/cli.log)"
    SCRATCH_PG+=("$DB_URL")
  fi
  log "$engine: demo data"
  cli "$DB_URL" migrate >/dev/null || die "migrate failed (see $(rel "$WORK")/cli.log)"
  cli "$DB_URL" demo --users 200 --openings 100000 --projects 20 --events 50 --meetings 20 --replace >/dev/null || die "demo failed (see $(rel "$WORK")/cli.log)"
  SECRET=$(cli "$DB_URL" token create --name "bench-stream-door" --scope door) || die "token create failed"
  [[ $SECRET == hs_* ]] || die "token create printed no secret"

  start_server "$DB_URL" "$engine-A"; A_PID=$SERVER_PID; A_PORT=$SERVER_PORT
  start_server "$DB_URL" "$engine-B"; B_PID=$SERVER_PID; B_PORT=$SERVER_PORT
  run "$engine" "same process" "$A_PORT" "$A_PORT" "$A_PID"
  run "$engine" "cross-process" "$B_PORT" "$A_PORT" "$B_PID"
  stop_pid "$A_PID"
  stop_pid "$B_PID"
done

{
  echo "Stream benchmark, $(date +%Y-%m-%d), $(nproc) CPUs, node $(node --version), commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$([[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]] || echo '+changes')"
  echo
  echo "| engine | run | clients | posts | all connected in | p50 response→last client | p99 response→last client | p50 request→last client | p99 request→last client | p50 door post | server RSS, no client | server RSS, clients connected | server VmHWM |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  printf '%s\n' "${ROWS[@]}"
} | tee "$REPORT"

for engine in "${ENGINES[@]}"; do
  read -r p99 rss hwm <<<"${MEASURED["$engine|same process"]}"
  awk -v x="$p99" 'BEGIN { exit !(x < 250) }' || FAILURES+=("$engine: p99 $p99 ms, target < 250 ms")
  (( rss < 300 * 1024 )) || FAILURES+=("$engine: RSS $((rss / 1024)) MB with the clients connected, target < 300 MB")
done
echo
echo "Targets (same process): p99 response→last client < 250 ms, server RSS < 300 MB: $([[ ${#FAILURES[@]} -eq 0 ]] && echo met || echo MISSED)"
echo "Table: $(rel "$REPORT")"
if [[ ${#FAILURES[@]} -gt 0 ]]; then
  printf '  %s\n' "${FAILURES[@]}" >&2
  exit 1
fi
