package rollout

import (
	"net/http"
	"regexp"
	"testing"
)

// gymPrefix is NeMo Gym's RolloutContextMiddleware pattern, as a Go regexp
// (its rest may hold any byte): the oracle splitRollout must agree with.
var gymPrefix = regexp.MustCompile(`(?s)^/ng-rollout/([A-Za-z0-9][A-Za-z0-9._-]*)(/.*)$`)

// FuzzRolloutPath splits arbitrary request paths. Whatever the path:
//   - splitRollout finds a prefix exactly when NeMo Gym's pattern matches,
//     with the same id and rest;
//   - the unprefixed request's routing path is that rest, and it carries
//     the id.
func FuzzRolloutPath(f *testing.F) {
	for _, p := range []string{"/ng-rollout/r1/verify", "/ng-rollout/a%2Fb/x", "/ng-rollout//x", "/ng-rollout/../x", "/ng-rollout/r1", "/ng-rollout/r1/", "/ng-rollout/-x/y", "/ng-rollout/a.b_c-d/e?x=1"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		id, rest, ok := splitRollout(path)
		m := gymPrefix.FindStringSubmatch(path)
		if ok != (m != nil) || ok && (id != m[1] || rest != m[2]) {
			t.Fatalf("splitRollout(%q) = %q, %q, %v; NeMo Gym's pattern: %q", path, id, rest, ok, m)
		}
		r, err := http.NewRequest("GET", "http://127.0.0.1"+path, nil)
		if err != nil {
			return
		}
		routing := r.URL.RawPath
		if routing == "" {
			routing = r.URL.Path
		}
		id, rest, ok = splitRollout(routing)
		if !ok {
			return
		}
		r.RequestURI = r.URL.RequestURI()
		validRaw := r.URL.RawPath == "" || r.URL.EscapedPath() == r.URL.RawPath
		r2 := unprefixed(r, id, rest)
		got := r2.URL.RawPath
		if got == "" {
			got = r2.URL.Path
		}
		if got != rest || ID(r2) != id {
			t.Fatalf("unprefixed(%q): routing path %q, id %q; want %q, %q", path, got, ID(r2), rest, id)
		}
		if validRaw && r2.URL.RawPath != "" && r2.URL.EscapedPath() != r2.URL.RawPath {
			t.Fatalf("unprefixed(%q): raw path %q is not an encoding of %q", path, r2.URL.RawPath, r2.URL.Path)
		}
	})
}
