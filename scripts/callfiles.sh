#!/usr/bin/env bash
# How many of the library's files one tools/call crosses:
#
#   ./scripts/callfiles.sh [-v]
#
# Builds autoexpose's test binary with coverage of every package of the
# library (-covermode=count) and runs its TestCallPath for each case — a
# path (fast, sdk) and a kind of route (direct, replayed) — once with two
# calls and once with three. The blocks whose counts differ between the two
# runs are the third call's; their files, tests aside, are the files one
# call crosses. Prints the count for each case, and the count of the
# library's files on the stack at the route's handler; with -v, the files.
set -euo pipefail
verbose=0
[[ "${1:-}" == "-v" ]] && verbose=1
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
go test -c -o "$out/autoexpose.test" -covermode=count -coverpkg=github.com/mcpdoor/mcpdoor/... ./autoexpose
for c in fast-direct fast-replayed sdk-direct sdk-replayed; do
	for n in 2 3; do
		(cd autoexpose && MCPDOOR_CALLPATH="$c" MCPDOOR_CALLPATH_CALLS="$n" MCPDOOR_CALLPATH_STACK="$out/$c.stack" "$out/autoexpose.test" \
			-test.run '^TestCallPath$' -test.count=1 -test.coverprofile="$out/$c.$n" >/dev/null)
	done
	# A block's line is "file:start,end statements count"; a block whose
	# count differs between the runs ran in the third call.
	files="$(awk 'FNR == 1 { next } NR == FNR { n[$1] = $3; next } $3 != n[$1] { split($1, p, ":"); print p[1] }' \
		"$out/$c.2" "$out/$c.3" | sed 's#^github.com/mcpdoor/mcpdoor/##' | sort -u)"
	echo "$c: $(grep -c . <<<"$files") files crossed, $(grep -c . "$out/$c.stack") on the stack at the handler"
	if ((verbose)); then
		sed 's/^/  /' <<<"$files"
		echo "  on the stack, innermost first:"
		sed 's/^/    /' "$out/$c.stack"
	fi
done
