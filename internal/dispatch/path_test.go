package dispatch

import (
	"net/http"
	"net/url"
	"reflect"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/pattern"
)

var pathSeeds = []string{
	"/get_weather", "/", "", "/v1/send_email", "/a-b.c~d_e/", "/A9",
	"//host/path", "///x", "/a b", "/caf\u00e9", "/a%20b", "/bad%zz", "/a?x=1", "/a?", "/a#frag",
	"get_weather", "http://h/p", "/a\x00b", "/a;b", "/a:b", "/@", "/a+b", "/a!b",
	"/a?b=1&c=d+e%20", "/a??", "/a?b#c", "/a?b\x7f", "/a?\x00", "/a?%zz", "/a%2Fb?x=1", "/a b?x", "//h?x",
}

// FuzzParsePath: parsePath is url.Parse, faster for plain paths and
// queries.
func FuzzParsePath(f *testing.F) {
	for _, p := range pathSeeds {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, path string) {
		var got url.URL
		gotErr := parsePath(&got, path)
		want, wantErr := url.Parse(path)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("parsePath(%q) error %v, url.Parse %v", path, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(&got, want) {
			t.Fatalf("parsePath(%q) = %#v, url.Parse %#v", path, got, *want)
		}
	})
}

// matchPatterns are the patterns FuzzMatch reads paths with.
var matchPatterns = []string{"/n/{id}", "/n/{id}/archive", "/f/{name}.{ext}", "/{a}-{b}/x", "/u/{user:[a-z]+}/n/{id:[0-9]+}", "/n/{id}/"}

// FuzzMatch: for a path that chi routes to a pattern, match reads the same
// parameter values from it as chi does.
func FuzzMatch(f *testing.F) {
	for i, p := range []string{"/n/42", "/n/42/archive", "/f/a.b.c", "/x-y-z/x", "/u/ann/n/7", "/n/a%2Fb/", "/n/", "/f/.pdf"} {
		f.Add(uint8(i), p)
	}
	routers := make([]chi.Router, len(matchPatterns))
	parts := make([][]pattern.Part, len(matchPatterns))
	for i, p := range matchPatterns {
		routers[i] = chi.NewRouter()
		routers[i].Get(p, func(http.ResponseWriter, *http.Request) {})
		parts[i], _ = pattern.Parse(p)
	}
	f.Fuzz(func(t *testing.T, which uint8, path string) {
		i := int(which) % len(matchPatterns)
		rctx := chi.NewRouteContext()
		if routers[i].Find(rctx, http.MethodGet, path) != matchPatterns[i] {
			return
		}
		var got chi.RouteParams
		match(parts[i], path, &got)
		if !reflect.DeepEqual(got.Keys, rctx.URLParams.Keys) || !reflect.DeepEqual(got.Values, rctx.URLParams.Values) {
			t.Fatalf("match(%s, %q) = %q %q; chi reads %q %q", matchPatterns[i], path, got.Keys, got.Values, rctx.URLParams.Keys, rctx.URLParams.Values)
		}
	})
}
