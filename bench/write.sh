#!/usr/bin/env bash
# Write benchmark: the door sensor's POST /api/space/openings/ on a large history.
#
#   bash bench/write.sh [--db sqlite|postgres|both] [--duration S] [--connections N] [--keep-db]
#
# For each engine (both by default, SQLite first):
# 1. a scratch database with the read benchmark's dataset (`demo`: 2,000 users, 1,000,000
#    openings, 200 projects, 500 events, 300 meetings). SQLite: a copy of bench/read.sh's cached
#    file when it is there and up to date (its .meta matches), else `demo` straight into the
#    copy; PostgreSQL: a new database hackerspace_bench_write_<pid> on BENCH_POSTGRES_SERVER,
#    filled with `demo`, then vacuumed as read.sh does (VACUUM FULL, VACUUM (FREEZE, ANALYZE)).
#    The scratch database is removed (SQLite) or dropped (PostgreSQL) at the end, also on failure;
# 2. a door token (`token create --name bench-door --scope door`); its secret stays in this
#    script's memory and reaches wrk through its environment: it is written to no file;
# 3. `hackerspace-api serve`, then four runs of wrk with bench/door.lua (1 s of warm-up, then
#    the measurement), each on a settled server:
#      change, -c1   bodies alternate {"is_open": true} / {"is_open": false}, starting with the
#                    opposite of the latest state: every post records a change (201)
#      change, -cN   the same with N connections (default 8): the server takes concurrent posts in
#                    whatever order they arrive, so some of them repeat the state and answer 200
#      same, -c1     the latest state, over and over: nothing to record (200)
#      same, -cN
# 4. after the runs, with the server stopped: the whole history (ordered by time, then id, as
#    the API orders it) must have no two consecutive openings in the same state, and each run's
#    new rows must match the 201 answers it saw (plus at most one per connection: the posts wrk
#    abandons when its time is up still reach the server);
# 5. prints a Markdown table and writes it to bench/out/write-<date>-<engines>.md (the run's
#    logs and wrk outputs in bench/out/write-run-<date>/; bench/out/ is git-ignored).
#
# Options:
#   --db ENGINE       sqlite, postgres or both (default)
#   --duration S      seconds of measurement per run (default 5; each run also gets 1 s of warm-up)
#   --connections N   wrk connections of the concurrent runs (default 8; wrk -t1 always)
#   --keep-db         keep the scratch databases (their names are printed) instead of removing them
#
# Environment (optional): BENCH_USERS, BENCH_OPENINGS, BENCH_PROJECTS, BENCH_EVENTS, BENCH_MEETINGS
# as for read.sh; BENCH_POSTGRES_SERVER (default postgres://postgres@127.0.0.1:5432): a role
# that may create databases.
#
# Exit status: 0 when everything was measured and every check passed; 1 otherwise (a command
# failed, a server died, a non-2xx answer or socket error, a repeated state in the history, a
# run whose answers or rows were not the expected ones). The table is printed either way when
# the runs completed.
set -Eeuo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
SCRIPT_NAME=write.sh
# shellcheck source=bench/lib.sh
source "$BENCH_DIR/lib.sh"   # log, die, rel, safe_url, stop_pid, drop_scratch
OUT="$BENCH_DIR/out"
cd "$ROOT"

# ---------------------------------------------------------------------------------------------
# Options

ENGINES_OPT=both
DURATION=5
CONNECTIONS=8
KEEP_DB=0

usage() { sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }
need_value() { [[ $1 -ge 2 ]] || { echo "write.sh: $2 needs a value" >&2; exit 2; }; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --db) need_value $# "$1"; ENGINES_OPT=$2; shift ;;
    --db=*) ENGINES_OPT=${1#*=} ;;
    --duration) need_value $# "$1"; DURATION=$2; shift ;;
    --duration=*) DURATION=${1#*=} ;;
    --connections) need_value $# "$1"; CONNECTIONS=$2; shift ;;
    --connections=*) CONNECTIONS=${1#*=} ;;
    --keep-db) KEEP_DB=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "write.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$ENGINES_OPT" in
  sqlite) ENGINES=(sqlite) ;;
  postgres|postgresql|pg) ENGINES=(postgres); ENGINES_OPT=postgres ;;
  both) ENGINES=(sqlite postgres) ;;
  *) echo "write.sh: --db expects sqlite, postgres or both, got '$ENGINES_OPT'" >&2; exit 2 ;;
esac
[[ "$DURATION" =~ ^[1-9][0-9]*$ ]] || { echo "write.sh: --duration expects whole seconds ≥ 1, got '$DURATION'" >&2; exit 2; }
[[ "$CONNECTIONS" =~ ^[1-9][0-9]*$ ]] || { echo "write.sh: --connections expects a whole number ≥ 1, got '$CONNECTIONS'" >&2; exit 2; }

USERS=${BENCH_USERS:-2000}
OPENINGS=${BENCH_OPENINGS:-1000000}
PROJECTS=${BENCH_PROJECTS:-200}
EVENTS=${BENCH_EVENTS:-500}
MEETINGS=${BENCH_MEETINGS:-300}
for v in USERS OPENINGS PROJECTS EVENTS MEETINGS; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || { echo "write.sh: $v must be a whole number, got '${!v}'" >&2; exit 2; }
done
PG_SERVER=${BENCH_POSTGRES_SERVER:-postgres://postgres@127.0.0.1:5432}
PG_SERVER=${PG_SERVER%/}
[[ "$PG_SERVER" =~ ^postgres(ql)?://[^/]+$ ]] \
  || { echo "write.sh: BENCH_POSTGRES_SERVER must look like postgres://user@host:port (no database), got '$(sed -E 's#^([a-z]+://[^:@/]*):[^@/]*@#\1:***@#' <<<"$PG_SERVER")'" >&2; exit 2; }

SCRIPT_T0=${EPOCHREALTIME/,/.}
mkdir -p "$OUT"
STAMP=$(date +%Y-%m-%d-%H%M%S)
WORK="$OUT/write-run-$STAMP"
mkdir -p "$WORK"
REPORT="$OUT/write-$STAMP-$ENGINES_OPT.md"
DEMO_ARGS=(--users "$USERS" --openings "$OPENINGS" --projects "$PROJECTS" --events "$EVENTS" --meetings "$MEETINGS" --replace)
# bench/read.sh's cached SQLite dataset of the same size (reused when its marker matches).
READ_CACHE="$OUT/read-u$USERS-o$OPENINGS-p$PROJECTS-e$EVENTS-m$MEETINGS.sqlite"

# ---------------------------------------------------------------------------------------------
# Logging, failure, cleanup

PIDS=()           # background processes started here and not stopped yet
SCRATCH_PG=()     # scratch PostgreSQL databases to drop
SCRATCH_FILES=()  # scratch SQLite files to remove

cleanup() {
  local rc=$? pid
  trap - EXIT INT TERM ERR
  for pid in "${PIDS[@]}"; do stop_pid "$pid"; done
  drop_scratch
  [[ $rc -eq 0 ]] || printf 'write.sh: exit status %s; logs in %s\n' "$rc" "$(rel "$WORK")" >&2
  exit "$rc"
}
trap cleanup EXIT
trap 'printf "write.sh: FAILED: line %s: %s (status %s)\n" "$LINENO" "$BASH_COMMAND" "$?" >&2' ERR
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------------------------
# Tools

for tool in node curl awk wrk; do
  command -v "$tool" >/dev/null 2>&1 \
    || die "$tool is required but not on PATH$([[ $tool != wrk ]] || echo " (Debian/Ubuntu: apt-get install wrk)")"
done
[[ -f "$ROOT/bin/hackerspace-api.js" ]] || die "bin/hackerspace-api.js not found under $ROOT"
[[ -f "$BENCH_DIR/door.lua" ]] || die "bench/door.lua not found"

now_ms() { local t=${EPOCHREALTIME/,/.}; echo $(( ${t%.*} * 1000 + 10#${t#*.} / 1000 )); }
seconds_since() { awk -v ms=$(($(now_ms) - $1)) 'BEGIN { printf "%.1f", ms / 1000 }'; }
free_port() { node "$BENCH_DIR/util.js" free-port || die "could not find a free port"; }
git_rev() {
  local rev
  rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null) || { echo unknown; return; }
  [[ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]] || rev="$rev+changes"
  echo "$rev"
}

# As in read.sh: the server's configuration variables other than the ones set here are removed,
# so that a developer's environment cannot change what is measured.
SERVER_ENV_UNSET=()
for v in $(grep -oE "env\.[A-Z_]+|env, '[A-Z_]+'" "$ROOT/src/config.ts" 2>/dev/null | grep -oE '[A-Z][A-Z_]+' || true) \
         PUBLIC_URL TRUST_PROXY TIME_ZONE PAGE_SIZE MAX_PAGE_SIZE AVATAR_FIELD AVATAR_HASH AVATAR_DEFAULT RESPONSE_CACHE_MB \
         DATABASE_POOL_SIZE DATABASE_STATEMENT_TIMEOUT_MS; do
  case "$v" in DATABASE_URL|HOST|PORT|LOG_LEVEL) ;; *) SERVER_ENV_UNSET+=(-u "$v") ;; esac
done

# The program under test, chosen as read.sh does: a copy of the dist/ bundle taken now when it is
# at least as new as src/, else the sources through tsx.
if [[ ! -f "$ROOT/dist/hackerspace-api.mjs" ]]; then
  CLI_ENTRY="TypeScript sources through tsx (no dist/ bundle)"
elif [[ -n "$(find "$ROOT/src" -type f -newer "$ROOT/dist/hackerspace-api.mjs" -print -quit)" ]]; then
  CLI_ENTRY="TypeScript sources through tsx (dist/ bundle older than src/)"
else
  CLI_ENTRY="dist/hackerspace-api.mjs bundle"
fi
if [[ $CLI_ENTRY == dist/* ]]; then
  CLI="$WORK/hackerspace-api.mjs"   # under $ROOT: node_modules is still found
  cp "$ROOT/dist/hackerspace-api.mjs" "$CLI"
  CLI_ENTRY="$CLI_ENTRY (a copy taken when the run started: $(sha256sum "$CLI" | cut -c1-12))"
else
  CLI="$ROOT/bin/hackerspace-api.js"
  log "note: run \`npm run build\` first to measure the bundle (what \`npm start\` runs)"
fi
log "the CLI will run: $CLI_ENTRY"

# cli DB-URL LOG ARGS...: runs the CLI on that database (stdout is the command's).
cli() {
  local db_url=$1 log_file=$2; shift 2
  env "${SERVER_ENV_UNSET[@]}" DATABASE_URL="$db_url" LOG_LEVEL=warn node "$CLI" "$@" 2>>"$log_file"
}

# ---------------------------------------------------------------------------------------------
# Servers

http_code() { curl -sS -o "${2:-/dev/null}" -w '%{http_code}' --max-time 10 "$1" 2>/dev/null || true; }

wait_for_200() {
  local url=$1 pid=$2 log_file=$3 deadline=$(( $(now_ms) + $4 * 1000 )) code
  while code=$(http_code "$url"); [[ "$code" != 200 ]]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      sed 's/^/    log: /' "$log_file" | tail -n 20 >&2
      die "the server behind $url exited during startup (log: $(rel "$log_file"))"
    fi
    (( $(now_ms) < deadline )) || die "$url did not answer 200 within $4 s (last status $code; log: $(rel "$log_file"))"
    sleep 0.02
  done
}

SERVER_PID=""
SERVER_PORT=""
SERVER_LOG=""
start_server() {
  local db_url=$1 name=$2
  SERVER_PORT=$(free_port)
  SERVER_LOG="$WORK/$name.log"
  env "${SERVER_ENV_UNSET[@]}" DATABASE_URL="$db_url" HOST=127.0.0.1 PORT="$SERVER_PORT" LOG_LEVEL=warn \
    node "$CLI" serve >"$SERVER_LOG" 2>&1 &
  SERVER_PID=$!; PIDS+=("$SERVER_PID")
  wait_for_200 "http://127.0.0.1:$SERVER_PORT/api/" "$SERVER_PID" "$SERVER_LOG" 30
}

# ---------------------------------------------------------------------------------------------
# The machine should be quiet (as in read.sh)

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
    log "WARNING: the CPUs were $pct% busy $1 with nothing of this script running: results will be noisy"
    NOISY=1
  fi
}

# ---------------------------------------------------------------------------------------------
# Measurements

# stat DB → "<rows> <max id> <latest is_open>"
db_stat() { node "$BENCH_DIR/write-util.js" stat "$1"; }

# settle DB: waits until the openings stop changing (the posts wrk abandoned at the end of a run
# still reach the server), then prints the stat.
settle() {
  local db=$1 a b i
  a=$(db_stat "$db") || die "could not read the openings of $(safe_url "$(rel "$db")")"
  for ((i = 0; i < 50; i++)); do
    sleep 0.2
    b=$(db_stat "$db") || die "could not read the openings of $(safe_url "$(rel "$db")")"
    [[ "$a" != "$b" ]] || { echo "$b"; return 0; }
    a=$b
  done
  die "the openings of $(safe_url "$(rel "$db")") kept changing for 10 s after wrk stopped"
}

# field LINE NAME → the value of NAME=value in wrk's DOOR line
field() { sed -nE "s/.*[ ]$2=([^ ]+).*/\\1/p" <<<"$1"; }
status_count() { sed -nE "s/(^|.*,)$2:([0-9]+).*/\\2/p" <<<"$1" | head -n 1; }

# run_wrk FILE MODE FIRST CONNECTIONS SECONDS URL → the DOOR line
run_wrk() {
  local file=$1 mode=$2 first=$3 conns=$4 secs=$5 url=$6 line
  # door.lua stops on a bad setting but wrk then goes on with plain GETs: the DOOR line is the proof.
  DOOR_TOKEN="$SECRET" DOOR_MODE="$([[ $mode == change ]] && echo alternate || echo same)" DOOR_FIRST="$first" \
    wrk -t1 -c"$conns" -d"${secs}s" --timeout 10s -s "$BENCH_DIR/door.lua" "$url" >"$file" 2>&1 \
    || { cat "$file" >&2; die "wrk failed ($(rel "$file"))"; }
  line=$(grep -E '^DOOR ' "$file" | tail -n 1) || true
  [[ -n "$line" ]] || { cat "$file" >&2; die "wrk printed no result line ($(rel "$file"))"; }
  echo "$line"
}

us_to_ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }
not() { [[ $1 == true ]] && echo false || echo true; }

# Results, keyed "engine|case"
declare -A R_RPS R_P50 R_P99 R_201 R_200 R_NON2XX R_SOCK R_ADDED R_WRK R_NOTE
declare -A E_DATASET E_HISTORY E_DESC
CASES=("change|1" "change|$CONNECTIONS" "same|1" "same|$CONNECTIONS")
[[ $CONNECTIONS -ne 1 ]] || CASES=("change|1" "same|1")
FAILURES=()
fail_check() { FAILURES+=("$1"); log "CHECK FAILED: $1"; }

# bench_case ENGINE DB URL MODE CONNECTIONS
bench_case() {
  local engine=$1 db=$2 url=$3 mode=$4 conns=$5 key="$1|$4|$5" slug="$1-$4-c$5" st rows latest first line
  local warm_non2xx after added requests s201 s200 non2xx sock dur
  st=$(settle "$db"); latest=${st##* }
  [[ $latest == true || $latest == false ]] || die "$engine: no opening to start from ($st)"
  first=$([[ $mode == change ]] && not "$latest" || echo "$latest")
  line=$(run_wrk "$WORK/wrk-$slug.warmup.txt" "$mode" "$first" "$conns" 1 "$url")
  warm_non2xx=$(field "$line" non2xx)
  [[ "$warm_non2xx" == 0 ]] || die "$engine, $mode -c$conns (warm-up): $warm_non2xx answers were not 2xx (statuses $(field "$line" statuses); server log $(rel "$SERVER_LOG"))"
  kill -0 "$SERVER_PID" 2>/dev/null || die "$engine: the server died during the warm-up (log $(rel "$SERVER_LOG"))"

  # The measurement starts from the state the warm-up left.
  st=$(settle "$db"); rows=${st%% *}; latest=${st##* }
  first=$([[ $mode == change ]] && not "$latest" || echo "$latest")
  line=$(run_wrk "$WORK/wrk-$slug.txt" "$mode" "$first" "$conns" "$DURATION" "$url")
  kill -0 "$SERVER_PID" 2>/dev/null || die "$engine: the server died during $mode -c$conns (log $(rel "$SERVER_LOG"))"
  after=$(settle "$db")
  added=$(( ${after%% *} - rows ))

  requests=$(field "$line" requests); dur=$(field "$line" duration_us)
  s201=$(status_count "$(field "$line" statuses)" 201); s201=${s201:-0}
  s200=$(status_count "$(field "$line" statuses)" 200); s200=${s200:-0}
  non2xx=$(field "$line" non2xx)
  sock=$(( $(field "$line" connect) + $(field "$line" read) + $(field "$line" write) + $(field "$line" timeout) ))
  [[ "$requests" -gt 0 ]] || die "$engine, $mode -c$conns: no post completed in $DURATION s"

  R_WRK[$key]="-t1 -c$conns -d${DURATION}s"
  R_RPS[$key]=$(awk -v n="$requests" -v us="$dur" 'BEGIN { printf "%.0f", n / (us / 1e6) }')
  R_P50[$key]=$(us_to_ms "$(field "$line" p50_us)")
  R_P99[$key]=$(us_to_ms "$(field "$line" p99_us)")
  R_201[$key]=$s201; R_200[$key]=$s200; R_NON2XX[$key]=$non2xx; R_ADDED[$key]=$added
  R_SOCK[$key]=$sock
  [[ $sock -eq 0 ]] || R_SOCK[$key]="$sock (connect $(field "$line" connect), read $(field "$line" read), write $(field "$line" write), timeout $(field "$line" timeout))"
  log "$(printf '%-8s %-6s -c%-3s %7s posts/s  p50 %7s ms  p99 %7s ms  statuses %s  rows added %s' \
    "$engine" "$mode" "$conns" "${R_RPS[$key]}" "${R_P50[$key]}" "${R_P99[$key]}" "$(field "$line" statuses)" "$added")"

  [[ "$non2xx" == 0 ]] || fail_check "$engine, $mode -c$conns: $non2xx answers were not 2xx (statuses $(field "$line" statuses))"
  [[ $sock -eq 0 ]] || fail_check "$engine, $mode -c$conns: socket errors: ${R_SOCK[$key]}"
  # Every 201 is a new row; besides, the posts abandoned at the end (one per connection at most)
  # may have added rows nobody saw the answer of.
  (( added >= s201 && added <= s201 + conns )) \
    || fail_check "$engine, $mode -c$conns: $added new openings for $s201 answers 201 (expected $s201 to $((s201 + conns)))"
  if [[ $mode == same ]]; then
    [[ $s201 -eq 0 && $added -eq 0 ]] || fail_check "$engine, same -c$conns: repeating the latest state recorded $added openings ($s201 answers 201)"
  elif [[ $conns -eq 1 ]]; then
    [[ $s200 -eq 0 ]] || fail_check "$engine, change -c1: $s200 of $requests alternating posts from one client answered 200 (no change)"
  fi
  if [[ $mode == change && $requests -gt 0 ]]; then
    R_NOTE[$key]=$(awk -v a="$s201" -v n="$requests" 'BEGIN { printf "%.1f%% recorded a change", 100 * a / n }')
  else
    R_NOTE[$key]="no change recorded"
  fi
}

run_engine() {
  local engine=$1 db db_url t0 counts openings hist repeats min_id desc base url cs mode conns build_s
  log "=== $engine ==="
  # 1. The scratch database
  if [[ $engine == sqlite ]]; then
    db="$WORK/door.sqlite"; db_url="sqlite:$db"
    SCRATCH_FILES+=("$db")
    if [[ -f "$READ_CACHE" && -f "$READ_CACHE.meta" ]] \
       && [[ "$(sed -n 's/^args=//p' "$READ_CACHE.meta" | head -n 1)" == "${DEMO_ARGS[*]}" ]] \
       && counts=$(node "$BENCH_DIR/util.js" db-counts "$READ_CACHE" 2>/dev/null) \
       && [[ "$counts" == "$(sed -n 's/^counts=//p' "$READ_CACHE.meta" | head -n 1)" ]]; then
      t0=$(now_ms)
      cp "$READ_CACHE" "$db"
      [[ ! -f "$READ_CACHE-wal" ]] || cp "$READ_CACHE-wal" "$db-wal"
      E_DATASET[$engine]="a copy of read.sh's cached $(rel "$READ_CACHE") (copied in $(seconds_since "$t0") s)"
    else
      log "building the dataset: hackerspace-api demo ${DEMO_ARGS[*]}"
      t0=$(now_ms)
      cli "$db_url" "$WORK/demo-$engine.log" demo "${DEMO_ARGS[@]}" >>"$WORK/demo-$engine.log" \
        || { tail -n 20 "$WORK/demo-$engine.log" >&2; die "demo failed on $engine"; }
      E_DATASET[$engine]="\`demo ${DEMO_ARGS[*]}\` into a scratch file (built in $(seconds_since "$t0") s; no up-to-date read.sh cache to copy)"
    fi
    desc="scratch file $(rel "$db") ($(awk -v b="$(stat -c %s "$db")" 'BEGIN { printf "%.1f", b / 1048576 }') MB before the runs)"
  else
    db_url="$PG_SERVER/hackerspace_bench_write_$$"; db=$db_url
    node "$BENCH_DIR/write-util.js" pg-new-db "$db_url" >"$WORK/pg-new-db.log" 2>&1 \
      || { cat "$WORK/pg-new-db.log" >&2; die "could not create the scratch database $(safe_url "$db_url") (is PostgreSQL running? does it exist already?)"; }
    SCRATCH_PG+=("$db_url")
    log "created the scratch database $(safe_url "$db_url")"
    log "building the dataset: hackerspace-api demo ${DEMO_ARGS[*]}"
    t0=$(now_ms)
    cli "$db_url" "$WORK/demo-$engine.log" demo "${DEMO_ARGS[@]}" >>"$WORK/demo-$engine.log" \
      || { tail -n 20 "$WORK/demo-$engine.log" >&2; die "demo failed on $engine"; }
    build_s=$(seconds_since "$t0"); t0=$(now_ms)
    node "$BENCH_DIR/util.js" pg-vacuum "$db_url" >"$WORK/pg-vacuum.log" 2>&1 \
      || { cat "$WORK/pg-vacuum.log" >&2; die "VACUUM of $(safe_url "$db_url") failed"; }
    E_DATASET[$engine]="\`demo ${DEMO_ARGS[*]}\` into the scratch database (built in $build_s s, then VACUUM FULL + VACUUM (FREEZE, ANALYZE) in $(seconds_since "$t0") s)"
    desc="$(node "$BENCH_DIR/util.js" pg-describe "$db_url" 2>/dev/null || echo PostgreSQL), scratch database \`$(safe_url "$db_url")\`"
  fi
  counts=$(node "$BENCH_DIR/util.js" db-counts "$db") || die "cannot count the rows of the $engine dataset"
  [[ "$counts" =~ \"openings\":([0-9]+) ]] && openings=${BASH_REMATCH[1]} || die "no openings count in $counts"
  [[ $openings -eq $OPENINGS ]] || die "$engine: the dataset has $openings openings, expected $OPENINGS"
  log "dataset: $counts"

  # The demo history must itself follow the door's rule, or the final check would mean nothing.
  hist=$(node "$BENCH_DIR/write-util.js" history "$db") || die "could not check the history of the $engine dataset"
  [[ "$hist" =~ \"repeats\":0[,}] ]] || die "$engine: the demo history already has consecutive openings in the same state: $hist"
  min_id=$(db_stat "$db" | awk '{ print $2 }')

  # 2. The door token: its secret only in this variable and wrk's environment.
  SECRET=$(cli "$db_url" "$WORK/token-$engine.log" token create --name bench-door --scope door) \
    || { cat "$WORK/token-$engine.log" >&2; die "token create failed on $engine"; }
  [[ "$SECRET" =~ ^[^[:space:]]+$ ]] || die "token create printed no single-word secret on $engine (see $(rel "$WORK")/token-$engine.log)"
  log "created the door token bench-door ($(wc -c <<<"$SECRET" | tr -d ' ') bytes of secret, kept in memory)"

  # 3. The runs
  start_server "$db_url" "server-$engine"
  log "server: pid $SERVER_PID, port $SERVER_PORT"
  base="http://127.0.0.1:$SERVER_PORT"
  url="$base/api/space/openings/"
  # Without credentials the door is refused: the token is what lets the posts through.
  cs=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 10 -X POST -H 'Content-Type: application/json' \
    -d '{"is_open": true}' "$url" || true)
  [[ "$cs" == 401 || "$cs" == 403 ]] || die "$engine: an anonymous POST answered $cs, expected 401 or 403"
  for cs in "${CASES[@]}"; do
    mode=${cs%|*}; conns=${cs#*|}
    bench_case "$engine" "$db" "$url" "$mode" "$conns"
  done
  [[ ! -s "$SERVER_LOG" ]] || log "note: the server wrote to its log (LOG_LEVEL=warn): $(rel "$SERVER_LOG")"
  stop_pid "$SERVER_PID"
  SECRET=""

  # 4. The history, with the server stopped
  hist=$(node "$BENCH_DIR/write-util.js" history "$db" "$min_id") || die "could not check the history of $engine"
  echo "$hist" >"$WORK/history-$engine.json"
  [[ "$hist" =~ \"repeats\":([0-9]+) ]] && repeats=${BASH_REMATCH[1]} || die "unexpected history check output: $hist"
  [[ "$hist" =~ \"rows\":([0-9]+) ]] || die "unexpected history check output: $hist"
  E_HISTORY[$engine]="${BASH_REMATCH[1]} openings after the runs ($(( BASH_REMATCH[1] - OPENINGS )) recorded by them), $repeats consecutive in the same state"
  if [[ $repeats -ne 0 ]]; then
    E_HISTORY[$engine]+=" — **FAILED** (first: $(sed -E 's/.*"examples":(.*)\}$/\1/' <<<"$hist"))"
    fail_check "$engine: the history has $repeats openings in the same state as the one before (ordered by time, then id); examples in $(rel "$WORK")/history-$engine.json"
  else
    log "history check: ${E_HISTORY[$engine]}"
  fi
  E_DESC[$engine]=$desc
  drop_scratch
}

check_idle "before the first run"
for engine in "${ENGINES[@]}"; do run_engine "$engine"; done
check_idle "after the last run"

# ---------------------------------------------------------------------------------------------
# Report

RUNTIME_S=$(awk -v a="$SCRIPT_T0" -v b="${EPOCHREALTIME/,/.}" 'BEGIN { printf "%.0f", b - a }')
CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
engine_name() { [[ $1 == sqlite ]] && echo SQLite || echo PostgreSQL; }
{
  echo "## Door write benchmark — $(date '+%Y-%m-%d %H:%M:%S %Z')"
  echo
  echo "\`POST /api/space/openings/\` with \`Authorization: Token <door token>\` and a JSON body, on the demo dataset ($OPENINGS openings). Load: \`wrk -t1 -cN -d${DURATION}s\` with bench/door.lua, after 1 s of warm-up, on \`hackerspace-api serve\` (one process; default configuration)."
  echo "\`change\`: bodies alternate \`{\"is_open\": true}\` / \`{\"is_open\": false}\` (from the opposite of the latest state), so each post from a single client records a change (201); with several connections the server takes posts in arrival order and some repeat the state (200). \`same\`: the latest state over and over (200, nothing recorded)."
  echo
  echo "| engine | case | wrk | posts/s | p50 | p99 | 201 | 200 | non-2xx | socket errors | new rows | |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
  for engine in "${ENGINES[@]}"; do
    for cs in "${CASES[@]}"; do
      key="$engine|$cs"
      [[ -n "${R_RPS[$key]:-}" ]] || continue
      printf '| %s | %s | `%s` | %s | %s ms | %s ms | %s | %s | %s | %s | %s | %s |\n' \
        "$(engine_name "$engine")" "${cs%|*}" "${R_WRK[$key]}" "${R_RPS[$key]}" "${R_P50[$key]}" "${R_P99[$key]}" \
        "${R_201[$key]}" "${R_200[$key]}" "${R_NON2XX[$key]}" "${R_SOCK[$key]}" "${R_ADDED[$key]}" "${R_NOTE[$key]}"
    done
  done
  echo
  total_non2xx=0
  for key in "${!R_NON2XX[@]}"; do total_non2xx=$(( total_non2xx + R_NON2XX[$key] )); done
  echo "- Non-2xx answers in the measured runs: **$total_non2xx** (warm-ups: 0, or the run stops)"
  for engine in "${ENGINES[@]}"; do
    echo "- Database ($(engine_name "$engine")): ${E_DESC[$engine]}; dataset: ${E_DATASET[$engine]}"
    echo "- $(engine_name "$engine") history check (ordered by time, then id): ${E_HISTORY[$engine]}"
  done
  echo "- New rows: openings added during the measured run (settled after wrk stopped), vs. the 201s wrk saw: at most one more per connection (posts abandoned when wrk's time is up still reach the server)."
  echo "- CLI entry point: $CLI_ENTRY"
  echo "- Run time of this script: $RUNTIME_S s"
  echo "- CPU busy with other processes (1 s samples, all cores): $(IFS=';'; echo "${IDLE_CHECKS[*]}" | sed 's/;/, /g')$([[ $NOISY -eq 0 ]] || echo ' — **the machine was not idle: noisy results**')"
  echo "- Machine: $(nproc) cores${CPU_MODEL:+ ($CPU_MODEL)}, node $(node --version), $({ wrk --version 2>&1 || true; } | awk 'NR == 1 { print $1, $2 }'), commit $(git_rev)"
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

if [[ ${#FAILURES[@]} -gt 0 ]]; then
  echo "write.sh: ${#FAILURES[@]} check(s) failed (see above)" >&2
  exit 1
fi
