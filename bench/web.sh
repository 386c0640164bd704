#!/usr/bin/env bash
# Web benchmark: the entry point the README names. The benchmark itself is bench/web.js
# (`bash bench/web.sh --help` lists its options; bench/README.md explains the method).
exec node "$(dirname "${BASH_SOURCE[0]}")/web.js" "$@"
