package openapi

import "testing"

func TestPointer(t *testing.T) {
	root := at("#")
	cases := []struct {
		name string
		p    *pointer
		want string
	}{
		{"none", nil, ""},
		{"the document", root, "#"},
		{"keys, escaped", root.child("paths").child("/a~b/{id}").child("post"), "#/paths/~1a~0b~1{id}/post"},
		{"an index", root.child("allOf").elem(12), "#/allOf/12"},
		{"an empty key", root.child(""), "#/"},
		{"under a $ref", at("#/components/schemas/Pet").child("properties").child("x/y"), "#/components/schemas/Pet/properties/x~1y"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.p.String(); got != c.want {
				t.Errorf("%q, want %q", got, c.want)
			}
		})
	}
	if got := unescape("~1a~0b~01"); got != "/a~b~1" {
		t.Errorf("unescape: %q", got)
	}
}

// BenchmarkPointerDeep: going one level deeper costs the same at any
// depth, with long keys.
func BenchmarkPointerDeep(b *testing.B) {
	key := string(make([]byte, 58))
	b.ReportAllocs()
	for b.Loop() {
		p := at("#")
		for range 200 {
			p = p.child(key)
		}
	}
}
