#!/usr/bin/env bash
# Write benchmark: the entry point the README names. The benchmark itself is bench/write.js
# (`bash bench/write.sh --help` lists its options; bench/README.md explains the method).
exec node "$(dirname "${BASH_SOURCE[0]}")/write.js" "$@"
