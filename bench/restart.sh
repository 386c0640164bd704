#!/usr/bin/env bash
# Rolling restart benchmark: the entry point the README names. The benchmark itself is
# bench/restart.js (`bash bench/restart.sh --help` lists its options; bench/README.md explains it).
exec node "$(dirname "${BASH_SOURCE[0]}")/restart.js" "$@"
