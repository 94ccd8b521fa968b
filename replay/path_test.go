package replay

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

var pathSeeds = []string{
	"/get_weather", "/", "", "/v1/send_email", "/a-b.c~d_e/", "/A9",
	"//host/path", "///x", "/a b", "/caf\u00e9", "/a%20b", "/bad%zz", "/a?x=1", "/a?", "/a#frag",
	"get_weather", "http://h/p", "/a\x00b", "/a;b", "/a:b", "/@", "/a+b", "/a!b",
}

// FuzzParsePath: parsePath is url.Parse, faster for plain paths.
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

// FuzzSegment: segment is strings.Split(path, "/")[i].
func FuzzSegment(f *testing.F) {
	for i, p := range pathSeeds {
		f.Add(p, uint8(i%4))
	}
	f.Fuzz(func(t *testing.T, path string, i uint8) {
		got, ok := segment(path, int(i))
		segs := strings.Split(path, "/")
		if want := int(i) < len(segs); ok != want || ok && got != segs[i] {
			t.Fatalf("segment(%q, %d) = %q, %v; strings.Split gives %q", path, i, got, ok, segs)
		}
	})
}
