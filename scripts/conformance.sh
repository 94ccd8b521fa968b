#!/usr/bin/env bash
# Runs the official MCP conformance suite against an MCP server and prints a
# table: scenario -> PASS / WARN / FAIL / ERROR / NONE.
#
#   scripts/conformance.sh [options] <url> [scenario...]
#   scripts/conformance.sh [options] --example NAME [--config FILE] [scenario...]
#
#   scripts/conformance.sh http://127.0.0.1:8080/mcp
#       every server scenario against a running server; exit 1 if a core one
#       fails (server-initialize, ping, tools-list, logging-set-level,
#       dns-rebinding-protection, server-sse-multiple-streams; override with
#       --required or $CONFORMANCE_REQUIRED)
#   scripts/conformance.sh http://127.0.0.1:8080/mcp server-initialize tools-list
#       just these; each one named is required
#   scripts/conformance.sh --example conformance
#   scripts/conformance.sh --example conformance --config examples/conformance/stateful.yaml
#       builds and starts ./examples/NAME on a free loopback port (with
#       -config FILE), runs the suite against its /mcp, and stops it;
#       examples/conformance serves the suite's fixture tools
#   scripts/conformance.sh --suite 0.1,0.2@2025-11-25,0.2@2026-07-28 --example conformance
#       the suite runs CI makes against the stateless example: 0.1.16 whole,
#       and 0.2.0-alpha.12 at both spec revisions' requirement sets, at once
#       (a stateful door serves 2025-11-25 only: --suite 0.1,0.2@2025-11-25)
#
# Options (see tests/node/conformance.mjs): --suite LIST (default 0.1),
# --required LIST, --strict, --out DIR, --json FILE|-, --verbose,
# --timeout MS, --jobs N.
#
# It runs on the Node 22 that tests/node installs (npm ci --prefix tests/node).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node="$root/tests/node/node_modules/node/bin/node"
if [[ ! -x "$node" || ! -d "$root/tests/node/node_modules/@modelcontextprotocol/conformance" || ! -d "$root/tests/node/node_modules/conformance-0.2" ]]; then
	echo "conformance: Node dependencies are not installed; run: npm ci --prefix tests/node" >&2
	exit 2
fi

example=""
config=""
args=()
while (($#)); do
	case "$1" in
	--example | --config)
		if (($# < 2)); then
			echo "conformance: $1 needs a value" >&2
			exit 2
		fi
		[[ "$1" == --example ]] && example="$2" || config="$2"
		shift 2
		;;
	# Options of conformance.mjs that take a value: kept with it.
	--suite | --required | --out | --json | --timeout | --jobs)
		args+=("$1" "${2:-}")
		shift $(($# < 2 ? 1 : 2))
		;;
	*)
		args+=("$1")
		shift
		;;
	esac
done
if [[ -z "$example" ]]; then
	if [[ -n "$config" ]]; then
		echo "conformance: --config goes with --example" >&2
		exit 2
	fi
	exec "$node" "$root/tests/node/conformance.mjs" "${args[@]}"
fi

# --example: build the example, start it, and find its address in its log.
if [[ ! -d "$root/examples/$example" ]]; then
	echo "conformance: no example $example in $root/examples" >&2
	exit 2
fi
work="$(mktemp -d)"
pid=""
cleanup() {
	if [[ -n "$pid" ]]; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
(cd "$root" && go build -o "$work/server" "./examples/$example")
run=("$work/server" -addr 127.0.0.1:0)
if [[ -n "$config" ]]; then
	run+=(-config "$config")
fi
"${run[@]}" 2>"$work/log" &
pid=$!
addr=""
for _ in $(seq 1 100); do
	addr="$(sed -n 's/.*msg="[^"]*: serving HTTP" addr=\([^ ]*\).*/\1/p' "$work/log" | head -n 1)"
	if [[ -n "$addr" ]] || ! kill -0 "$pid" 2>/dev/null; then
		break
	fi
	sleep 0.1
done
if [[ -z "$addr" ]]; then
	echo "conformance: examples/$example did not start:" >&2
	cat "$work/log" >&2
	exit 2
fi
echo "conformance: examples/$example${config:+ -config $config} at http://$addr/mcp" >&2
status=0
"$node" "$root/tests/node/conformance.mjs" "http://$addr/mcp" "${args[@]}" || status=$?
exit "$status"
