#!/usr/bin/env bash
# The project's test command:
#
#   ./scripts/test.sh [--short] [--no-fuzz]
#
#   1. installs the Node test dependencies (tests/node: the MCP TypeScript SDK,
#      @ai-sdk/mcp, the MCP conformance suite and Node 22) when missing or out
#      of date;
#   then, over the packages of every module that go.work uses (the library,
#   its end-to-end tests, the examples, the benchmark, and any module added
#   there), two jobs side by side, each with its output kept until it ends:
#   2. tests: go test -race, one go test over every module's packages, with
#      MCPDOOR_REQUIRE_NODE=1, so the tests that drive the server with the
#      Node client fail instead of skipping, and MCPDOOR_LONG=1, so the load
#      tests (TestLoad, TestConcurrentRollouts) run at full size and the
#      tests that run the go command or push tens of MiB run at all;
#   3. checks: go vet, then staticcheck (the version tests/go.mod pins with
#      its tool directive: go tool staticcheck), each in one invocation over
#      every module; then, without the race detector (under which allocation
#      figures mean little), the allocation tests TestCallAllocations,
#      TestWrapMemory and TestVerifyOverOldLimit (80 MiB through /verify,
#      minutes under the race detector); then a short fuzz pass: one
#      instrumented test binary per package that has Fuzz targets, each
#      target run from it, one at a time, for $FUZZTIME (default 20000x: a
#      count of inputs, not a duration — a duration-based -fuzztime can fail
#      with "context deadline exceeded" and no crasher, a race in Go's fuzz
#      coordinator, go.dev/issue/75804, fixed in Go 1.27). A crasher is
#      written to the package's testdata/fuzz, as go test -fuzz writes it.
#   Any step that fails fails the script, which names it at the end.
#
#   --short     pass -short to go test (the load tests run small)
#   --no-fuzz   skip the fuzz pass
#
# Works from any directory. Needs go, and npm (for step 1).
set -euo pipefail

usage() {
	sed -n '2,33s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
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
root="$PWD"

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

# The modules: the directories go.work uses, as go work edit -json prints
# them ("DiskPath": "./tests"). Their packages, as patterns from the root.
modules=()
while IFS= read -r dir; do
	modules+=("$dir")
done < <(go work edit -json | sed -n 's/^[[:space:]]*"DiskPath": "\(.*\)",\{0,1\}$/\1/p')
if ((${#modules[@]} == 0)); then
	echo "test.sh: go work edit -json lists no module" >&2
	exit 1
fi
pkgs=()
for m in "${modules[@]}"; do
	pkgs+=("${m%/}/...")
done
echo "test.sh: modules ${modules[*]}" >&2

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Each step appends its name to $tmp/failed when it fails; the script goes
# on, so that one run shows every failure.
step() {
	local name="$1"
	shift
	echo "+ $*" >&2
	local start=$SECONDS
	if "$@"; then
		echo "test.sh: $name: ok in $((SECONDS - start))s" >&2
	else
		echo "test.sh: $name: FAILED (exit $?) after $((SECONDS - start))s" >&2
		echo "$name" >>"$tmp/failed"
	fi
}

# fuzzpass builds one instrumented test binary per package with Fuzz
# targets (go test -c -fuzz, from the package's module), lists its targets
# with the binary itself, and runs each from the package's directory, where
# its seed corpus (testdata/fuzz/<target>) is, with the corpus cache that go
# test -fuzz uses ($GOCACHE/fuzz/<import path>).
fuzzpass() {
	local cache
	cache="$(go env GOCACHE)/fuzz"
	local list
	list="$(go list -f '{{.ImportPath}}|{{.Dir}}|{{.Module.Dir}}|{{join .TestGoFiles " "}} {{join .XTestGoFiles " "}}' "${pkgs[@]}")"
	local n=0 built=0
	while IFS='|' read -r pkg dir moddir files; do
		[[ -n "${files// /}" ]] || continue
		(cd "$dir" && grep -qs '^func Fuzz' $files) || continue
		local bin
		bin="$tmp/fuzz/$(tr / _ <<<"$pkg").test"
		local rel="./${dir#"$moddir"}"
		rel="${rel/#.\/\//./}"
		step "fuzz build $pkg" go -C "$moddir" test -c -fuzz=. -o "$bin" "$rel"
		[[ -x "$bin" ]] || continue
		built=$((built + 1))
		local names
		names="$(cd "$dir" && "$bin" -test.list '^Fuzz')" || {
			echo "fuzz list $pkg" >>"$tmp/failed"
			continue
		}
		local name
		for name in $names; do
			n=$((n + 1))
			(cd "$dir" && step "fuzz $pkg $name" "$bin" -test.run='^$' -test.fuzz="^${name}\$" \
				-test.fuzztime="${FUZZTIME:-20000x}" -test.fuzzcachedir="$cache/$pkg")
		done
	done <<<"$list"
	echo "test.sh: fuzz: $n target(s) in $built package(s)" >&2
	if ((n == 0)); then
		echo "fuzz: no target found" >>"$tmp/failed"
	fi
}

# 2. The tests, all modules in one go test: one build, scheduled by -p.
# A package's binary may run go builds of its own on an empty cache
# (internal/gen, autoexpose, cmd/mcpdoor): on a loaded machine that takes
# longer than go test's default -timeout of 10 minutes.
tests() {
	step "go test -race" go test -race -timeout=30m "${short[@]}" "${pkgs[@]}"
}

# 3. The checks.
checks() {
	step "go vet" go vet "${pkgs[@]}"
	step "staticcheck" go tool staticcheck "${pkgs[@]}"
	step "allocation tests" go test "${short[@]}" -run '^(TestCallAllocations|TestWrapMemory|TestVerifyOverOldLimit)$' ./autoexpose ./verifywrap
	if ((fuzz)); then
		fuzzpass
	fi
}

# The two jobs run side by side, each writing its log; a log is printed
# whole when its job ends, the tests' first.
start=$SECONDS
mkdir -p "$tmp/fuzz"
echo "test.sh: running the tests (go test -race) and the checks (vet, staticcheck, allocation tests$( ((fuzz)) && echo ", fuzz")) side by side" >&2
tests >"$tmp/tests.log" 2>&1 &
tests_pid=$!
checks >"$tmp/checks.log" 2>&1 &
checks_pid=$!
wait "$tests_pid" || echo "tests job" >>"$tmp/failed"
echo "=== tests (go test -race), done at $((SECONDS - start))s" >&2
cat "$tmp/tests.log" >&2
wait "$checks_pid" || echo "checks job" >>"$tmp/failed"
echo "=== checks (vet, staticcheck, allocation tests, fuzz), done at $((SECONDS - start))s" >&2
cat "$tmp/checks.log" >&2

if [[ -s "$tmp/failed" ]]; then
	echo "test.sh: FAILED after $((SECONDS - start))s:" >&2
	sed 's/^/  /' "$tmp/failed" >&2
	exit 1
fi
echo "test.sh: all passed in $((SECONDS - start))s" >&2
