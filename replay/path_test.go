package replay

import (
	"net/url"
	"reflect"
	"testing"
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
