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
