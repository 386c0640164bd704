#!/usr/bin/env bash
# Stream benchmark: the entry point the README names. The benchmark itself is bench/stream.js
# (`bash bench/stream.sh --help` lists its options; bench/README.md explains the method). Every
# client is a socket in the helper and one in the server: the open-files limit is raised here, to
# the hard limit, since Node cannot raise its own.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
exec node "$(dirname "${BASH_SOURCE[0]}")/stream.js" "$@"
