# Helpers shared by the benchmark scripts (sourced, not run). The script sets SCRIPT_NAME, ROOT
# and a PIDS array of the background processes it started before calling stop_pid.

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '\n%s: FAILED: %s\n' "$SCRIPT_NAME" "$*" >&2; exit 1; }
rel() { echo "${1#"$ROOT"/}"; }   # a path as shown to the user
# A database URL with its password masked, for messages.
safe_url() { sed -E 's#^([a-z]+://[^:@/]*):[^@/]*@#\1:***@#' <<<"$1"; }

# stop_pid PID: SIGTERM, then SIGKILL after 5 s; the process is reaped and removed from PIDS.
stop_pid() {
  local pid=$1 i p kept=()
  if kill -TERM "$pid" 2>/dev/null; then
    for ((i = 0; i < 50; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "process $pid ignored SIGTERM for 5 s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  wait "$pid" 2>/dev/null || true
  for p in "${PIDS[@]}"; do [[ "$p" == "$pid" ]] || kept+=("$p"); done
  PIDS=("${kept[@]}")
}

# drop_scratch: removes the scratch SQLite files (with their -wal, -shm, -journal) and drops the
# scratch PostgreSQL databases the script listed in SCRATCH_FILES and SCRATCH_PG; with KEEP_DB=1
# it names them instead. The script sets BENCH_DIR and WORK (cleanup.log goes there).
drop_scratch() {
  local url f kept=()
  for url in "${SCRATCH_PG[@]}"; do
    if [[ ${KEEP_DB:-0} -eq 1 ]]; then
      log "kept the scratch database $(safe_url "$url") (--keep-db)"
    elif node "$BENCH_DIR/util.js" pg-drop-db "$url" >>"$WORK/cleanup.log" 2>&1; then
      log "dropped the scratch database $(safe_url "$url")"
    else
      log "WARNING: could not drop the scratch database $(safe_url "$url") (see $(rel "$WORK")/cleanup.log)"
      kept+=("$url")
    fi
  done
  SCRATCH_PG=("${kept[@]}")
  for f in "${SCRATCH_FILES[@]}"; do
    if [[ ${KEEP_DB:-0} -eq 1 ]]; then log "kept the scratch database $(rel "$f") (--keep-db)"
    else rm -f "$f" "$f-wal" "$f-shm" "$f-journal"; fi
  done
  SCRATCH_FILES=()
}
