#!/usr/bin/env bash
# Runs the official MCP conformance suite against a running MCP server and
# prints a table: scenario -> PASS / WARN / FAIL / ERROR / NONE.
#
#   scripts/conformance.sh [options] <url> [scenario...]
#
#   scripts/conformance.sh http://127.0.0.1:8080/mcp
#       every server scenario; exit 1 if a core one fails (server-initialize,
#       ping, tools-list, logging-set-level, dns-rebinding-protection,
#       server-sse-multiple-streams; override with --required or
#       $CONFORMANCE_REQUIRED)
#   scripts/conformance.sh http://127.0.0.1:8080/mcp server-initialize tools-list
#       just these; each one named is required
#
# Options (see tests/node/conformance.mjs): --required LIST, --strict,
# --out DIR, --json FILE|-, --verbose, --timeout MS, --jobs N.
#
# It runs on the Node 22 that tests/node installs (npm ci --prefix tests/node).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node="$root/tests/node/node_modules/node/bin/node"
if [[ ! -x "$node" || ! -d "$root/tests/node/node_modules/@modelcontextprotocol/conformance" ]]; then
	echo "conformance: Node dependencies are not installed; run: npm ci --prefix tests/node" >&2
	exit 2
fi
exec "$node" "$root/tests/node/conformance.mjs" "$@"
