#!/usr/bin/env bash
# Measures the MCP door against its contenders (bench/doorbench):
# server CPU and bytes allocated per stateless tools/call of an echo tool,
# the 1 MiB-argument echo and its peak heap, and throughput with 64
# concurrent clients.
#
#   ./scripts/bench.sh            a quick run, under a minute
#   ./scripts/bench.sh -full      a full run, a few minutes
#   ./scripts/bench.sh -h         every flag (rounds, calls, clients, ...)
#
# It builds the program and runs it with the commit it measures (and
# "+uncommitted" when the tree differs from it); the servers run in a child
# process on 127.0.0.1.
# The output starts and ends with the machine's load average: compare runs
# only when the machine was equally quiet.
#
# Works from any directory. Needs go.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# bench/ is a module of its own (it keeps mcp-go out of the library's):
# built from there, it builds with or without the root's go.work.
go -C bench build -o "$tmp/doorbench" ./doorbench
commit="$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
if [[ "$commit" != unknown && -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
	commit+="+uncommitted"
fi
"$tmp/doorbench" -commit "$commit" "$@"
