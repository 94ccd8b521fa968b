package fastpath

import (
	"log/slog"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fast path writes what the go-sdk would write for a tools/call (see
// Path): the headers it accepts, its id echo, its nesting limit, its
// _meta fields, its result encoding and its SSE framing. That holds for
// the go-sdk versions it was checked against, and nothing keeps it true of
// another: Go's module resolution can select a newer go-sdk for a user's
// build than the one this module requires, and a replace directive any
// code at all. So the fast path is fenced: it runs only in a binary built
// with one of verifiedSDKs, unreplaced, and otherwise stays off, the
// go-sdk serving every call (correct, but slower), and Install says so.

// verifiedSDKs are the versions of the go-sdk module the fast path was
// verified against: the one place that lists them.
//
// To add a version, require it (go get
// github.com/modelcontextprotocol/go-sdk@VERSION), add it here, and run
// against it the golden tests (autoexpose/fastpath*_test.go: the fast
// path's answers must be the go-sdk's, byte for byte, and the fast path
// must have served them), the differential tests of tests/ (TestBadInput
// among them: the golden tests alone passed against an older go-sdk whose
// nesting limit differed) and the fast path's fuzz target:
//
//	go test -race ./autoexpose ./tests
//	go test -run '^$' -fuzz '^FuzzFastPath$' -fuzztime 20000x ./autoexpose
//
// Keep it only if every one passes; where one fails, the fast path must
// first learn what the version changed. (Without the version here, the
// golden tests fail at once: the fence keeps the fast path off.)
var verifiedSDKs = []string{"v1.8.0"}

// SDKModulePath is the go-sdk's module path.
const SDKModulePath = "github.com/modelcontextprotocol/go-sdk"

// A Fence is what a binary says of the go-sdk it was built with, and
// whether the fast path may run with it.
type Fence struct {
	Found string // the go-sdk's version, as the build records it
	Why   string // why the fast path stays off; "" when it may run
}

// TheFence is the running binary's fence, read once: the binary does not
// change. A variable, so that a test can try another.
var TheFence = sync.OnceValue(func() Fence {
	bi, ok := debug.ReadBuildInfo()
	return readFence(bi, ok, sdkSourceFile())
})

// readFence reads the fence from a binary's build info (bi and ok, as
// debug.ReadBuildInfo returns them) and the source file of one of the
// go-sdk's functions, as the binary records it.
//
// The build info names the go-sdk module, its version and its replacement,
// if any. A go test binary records no dependencies there (only its main
// module: golang/go#76926); for it the go-sdk's source path says which
// version the build compiled, when the source is the module cache's copy
// of one (<cache>/github.com/modelcontextprotocol/go-sdk@v1.8.0/..., or
// without the cache's directory under -trimpath), which the go command
// checks against go.sum. Any other source — a replacement, a workspace
// module, a vendor directory — could be any code.
func readFence(bi *debug.BuildInfo, ok bool, sdkFile string) Fence {
	if !ok {
		return Fence{Found: "unknown", Why: "the binary has no build info (it was built without module support), so the go-sdk's version is unknown"}
	}
	for _, m := range append([]*debug.Module{&bi.Main}, bi.Deps...) {
		if m.Path != SDKModulePath {
			continue
		}
		if r := m.Replace; r != nil {
			found := m.Version + " => " + r.Path
			if r.Version != "" && r.Version != "(devel)" { // a directory's is (devel)
				found += " " + r.Version
			}
			return Fence{Found: found, Why: "the go-sdk module is replaced, and a replacement can be any code"}
		}
		return versionFence(m.Version)
	}
	if v, ok := cachedVersion(sdkFile); ok {
		return versionFence(v)
	}
	return Fence{Found: "unknown", Why: "the build records no go-sdk version: a go test binary records no module versions, and its go-sdk source " +
		"is not the module cache's copy of a version (" + sdkFile + "), so it could be any code"}
}

// versionFence is the fence of go-sdk version v, unreplaced.
func versionFence(v string) Fence {
	if slices.Contains(verifiedSDKs, v) {
		return Fence{Found: v}
	}
	return Fence{Found: v, Why: "the fast path was not verified against go-sdk " + v}
}

// cachedVersion returns the go-sdk version whose module cache copy holds
// source file file, and ok false for a file elsewhere.
func cachedVersion(file string) (version string, ok bool) {
	const dir = SDKModulePath + "@"
	file = filepath.ToSlash(file)
	i := strings.Index(file, dir)
	if i < 0 || i > 0 && file[i-1] != '/' {
		return "", false
	}
	version, _, ok = strings.Cut(file[i+len(dir):], "/")
	return version, ok && version != ""
}

// sdkSourceFile is the source file of one of the go-sdk's functions, as
// the binary records it; "" if unknown.
func sdkSourceFile() string {
	pc := reflect.ValueOf(mcp.NewStreamableHTTPHandler).Pointer()
	if f := runtime.FuncForPC(pc); f != nil {
		file, _ := f.FileLine(pc)
		return file
	}
	return ""
}

// Fenced reports whether the fast path must stay off in this binary, and
// when so logs why on log: the door asks once, as Install makes it.
func Fenced(log *slog.Logger) bool {
	f := TheFence()
	if f.Why == "" {
		return false
	}
	log.Info("mcpdoor: fast path off: tool calls go through the go-sdk, which serves them correctly but slower",
		"go_sdk", f.Found,
		"verified", strings.Join(verifiedSDKs, ", "),
		"why", f.Why,
		"fix", "build with a verified go-sdk, unreplaced (go get "+SDKModulePath+"@"+verifiedSDKs[len(verifiedSDKs)-1]+
			"), or set mcp.disable_fast_path: true to keep every call on the go-sdk without this line")
	return true
}
