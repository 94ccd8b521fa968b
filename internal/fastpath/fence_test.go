package fastpath

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestReadFence: the fast path runs with a verified go-sdk, unreplaced, as
// the build info records it or, in a go test binary, which records no
// dependencies, as the go-sdk's source path in the module cache says; with
// anything else it stays off, and the fence says what it found and why.
func TestReadFence(t *testing.T) {
	const cached = "/home/u/go/pkg/mod/" + SDKModulePath + "@%s/mcp/streamable.go"
	v := verifiedSDKs[0]
	sdk := func(version string, replace *debug.Module) *debug.BuildInfo {
		return &debug.BuildInfo{Path: "example.com/server", Main: debug.Module{Path: "example.com/server", Version: "(devel)"},
			Deps: []*debug.Module{{Path: "github.com/go-chi/chi/v5", Version: "v5.5.0"}, {Path: SDKModulePath, Version: version, Replace: replace}}}
	}
	testBinary := &debug.BuildInfo{Path: "example.com/server.test", Main: debug.Module{Path: "example.com/server", Version: "(devel)"}}
	cases := []struct {
		name     string
		bi       *debug.BuildInfo
		ok       bool
		file     string
		found    string
		why      string // a part of why; "" for none
		fastPath bool
	}{
		{"verified", sdk(v, nil), true, "", v, "", true},
		{"verified, whatever the source path", sdk(v, nil), true, "/src/go-sdk/mcp/streamable.go", v, "", true},
		{"newer", sdk("v9.0.0", nil), true, "", "v9.0.0", "was not verified against go-sdk v9.0.0", false},
		{"pseudo-version", sdk("v1.8.1-0.20260101000000-abcdefabcdef", nil), true, "", "v1.8.1-0.20260101000000-abcdefabcdef", "not verified", false},
		{"replaced by a directory", sdk(v, &debug.Module{Path: "../go-sdk", Version: "(devel)"}), true, "", v + " => ../go-sdk", "is replaced", false},
		{"replaced by a fork", sdk(v, &debug.Module{Path: "example.com/fork", Version: v}), true, "", v + " => example.com/fork " + v, "is replaced", false},
		{"replaced by another version", sdk(v, &debug.Module{Path: SDKModulePath, Version: "v1.7.0"}), true, "", v + " => " + SDKModulePath + " v1.7.0", "is replaced", false},
		{"a workspace module", sdk("(devel)", nil), true, "", "(devel)", "not verified", false},
		{"the go-sdk's own module", &debug.BuildInfo{Main: debug.Module{Path: SDKModulePath, Version: "(devel)"}}, true, "", "(devel)", "not verified", false},
		{"no build info", nil, false, "", "unknown", "no build info", false},
		{"test binary, from the cache", testBinary, true, strings.Replace(cached, "%s", v, 1), v, "", true},
		{"test binary, -trimpath", testBinary, true, SDKModulePath + "@" + v + "/mcp/streamable.go", v, "", true},
		{"test binary, another version", testBinary, true, strings.Replace(cached, "%s", "v1.7.0", 1), "v1.7.0", "not verified", false},
		{"test binary, a replacement directory", testBinary, true, "/src/go-sdk/mcp/streamable.go", "unknown", "not the module cache's copy", false},
		{"test binary, vendored", testBinary, true, "/src/server/vendor/" + SDKModulePath + "/mcp/streamable.go", "unknown", "not the module cache's copy", false},
		{"test binary, a module path that ends in the go-sdk's", testBinary, true, "/home/u/go/pkg/mod/example.com/x" + SDKModulePath + "@" + v + "/mcp/streamable.go", "unknown", "any code", false},
		{"test binary, no source path", testBinary, true, "", "unknown", "any code", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := readFence(c.bi, c.ok, c.file)
			if f.Found != c.found || (f.Why == "") != c.fastPath || !strings.Contains(f.Why, c.why) {
				t.Errorf("readFence = {found %q, why %q}, want found %q, fast path on %v, why containing %q", f.Found, f.Why, c.found, c.fastPath, c.why)
			}
		})
	}
}

// TestFenceRunning: this test binary's own fence lets the fast path run,
// as every test of the fast path needs: go.mod requires a verified go-sdk.
func TestFenceRunning(t *testing.T) {
	if f := TheFence(); f.Why != "" {
		t.Fatalf("the fast path is off in this test binary: go-sdk %s: %s (source %s)", f.Found, f.Why, sdkSourceFile())
	}
}
