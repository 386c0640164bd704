#!/usr/bin/env bash
# Read benchmark: the entry point the README names. The benchmark itself is bench/read.js
# (`bash bench/read.sh --help` lists its options; bench/README.md explains the method).
exec node "$(dirname "${BASH_SOURCE[0]}")/read.js" "$@"
