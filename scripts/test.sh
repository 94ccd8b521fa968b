#!/usr/bin/env bash
# The project's test command:
#
#   ./scripts/test.sh [--short] [--no-fuzz]
#
#   1. installs the Node test dependencies (tests/node: the MCP TypeScript SDK,
#      @ai-sdk/mcp, the MCP conformance suite and Node 22) when missing or out
#      of date;
#   2. go vet ./... and staticcheck ./..., in each module of go.work:
#      the library (.), its end-to-end tests (tests/), the examples
#      (examples/), the benchmark (bench/) and the Redis session store
#      (session/redisstore/);
#   3. go test -race ./...   in each, with MCPDOOR_REQUIRE_NODE=1, so the
#      tests that drive the server with the Node client fail instead of
#      skipping, and
#      MCPDOOR_LONG=1, so the load tests (TestLoad, TestConcurrentRollouts)
#      run at full size rather than the small size of a plain go test;
#      then, without the race detector (under which allocation figures mean
#      little), the allocation tests: go test -run TestCallAllocations, and
#      TestWrapMemory and TestVerifyOverOldLimit (80 MiB through /verify,
#      minutes under the race detector);
#   4. a short fuzz pass: every Fuzz target of every module, one at a time, for $FUZZTIME
#      (default 20000x: a count of inputs, not a duration — a duration-based
#      -fuzztime can fail with "context deadline exceeded" and no crasher,
#      a race in Go's fuzz coordinator, go.dev/issue/75804, fixed in Go 1.27).
#
#   --short     pass -short to go test (the load tests run small)
#   --no-fuzz   skip step 4
#
# Works from any directory. Needs go, and npm (for step 1).
set -euo pipefail

usage() {
	sed -n '2,25s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

short=()
fuzz=1
for arg in "$@"; do
	case "$arg" in
	--short) short=(-short) ;;
	--no-fuzz) fuzz=0 ;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		echo "test.sh: unknown argument: $arg" >&2
		usage >&2
		exit 2
		;;
	esac
done

cd "$(dirname "${BASH_SOURCE[0]}")/.."

run() {
	echo "+ $*" >&2
	"$@"
}

# 1. Node dependencies. A stamp of the manifest and lockfile inside
# node_modules tells whether the installed tree is the committed one. A
# node_modules that is a symbolic link (one install shared by several
# checkouts) is used as it is, never reinstalled: npm ci would empty the
# directory it links to.
node_dir=tests/node
stamp="$node_dir/node_modules/.mcpdoor-installed"
want="$(cat "$node_dir/package.json" "$node_dir/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [[ -L "$node_dir/node_modules" ]]; then
	if [[ ! -x "$node_dir/node_modules/node/bin/node" ]]; then
		echo "test.sh: $node_dir/node_modules links to a directory without Node 22; install it there (npm ci) or remove the link" >&2
		exit 1
	fi
	if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
		echo "test.sh: $node_dir/node_modules is a link, used as it is; it may not match $node_dir/package-lock.json" >&2
	fi
elif [[ ! -x "$node_dir/node_modules/node/bin/node" || ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
	if ! command -v npm >/dev/null; then
		echo "test.sh: npm is needed to install the Node test dependencies ($node_dir)" >&2
		exit 1
	fi
	start=$SECONDS
	run npm ci --prefix "$node_dir" --no-audit --no-fund --loglevel=error
	echo "$want" >"$stamp"
	echo "test.sh: Node dependencies installed in $((SECONDS - start))s" >&2
fi
run "$node_dir/node_modules/node/bin/node" --version

export MCPDOOR_REQUIRE_NODE=1 MCPDOOR_LONG=1

# The repository's modules, as go.work lists them: the library, its
# end-to-end tests, the examples, the benchmark, the Redis session store.
mapfile -t modules < <(go list -m -f '{{.Dir}}')
((${#modules[@]} > 1)) || { echo "test.sh: go list -m lists no module of go.work" >&2; exit 1; }

# 2, 3. Vet, lint and test, module by module.
for m in "${modules[@]}"; do
	run go -C "$m" vet ./...
	run go -C "$m" run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
done
for m in "${modules[@]}"; do
	run go -C "$m" test -race "${short[@]}" ./...
done
run go test "${short[@]}" -run '^TestCallAllocations$' ./autoexpose
run go test "${short[@]}" -run '^(TestWrapMemory|TestVerifyOverOldLimit)$' ./verifywrap ./autoexpose

# 4. Fuzz. `go test -list` prints each package's matching names, then an
# "ok <package>" line.
if ((fuzz)); then
	targets=()
	for m in "${modules[@]}"; do
		echo "+ go -C $m test -list '^Fuzz' ./..." >&2
		list="$(go -C "$m" test -list '^Fuzz' ./...)"
		names=()
		while IFS= read -r line; do
			case "$line" in
			Fuzz*) names+=("$line") ;;
			ok*)
				pkg="$(awk '{print $2}' <<<"$line")"
				for name in "${names[@]}"; do
					targets+=("$m $pkg $name")
				done
				names=()
				;;
			*) names=() ;;
			esac
		done <<<"$list"
	done
	echo "test.sh: ${#targets[@]} fuzz target(s)" >&2
	for target in "${targets[@]}"; do
		read -r m pkg name <<<"$target"
		run go -C "$m" test -run='^$' -fuzz="^${name}\$" -fuzztime="${FUZZTIME:-20000x}" "$pkg"
	done
fi
