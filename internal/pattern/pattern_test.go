package pattern

import (
	"errors"
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		want    []Part
		err     string
	}{
		{"/", []Part{{Literal: "/"}}, ""},
		{"/api/notes", []Part{{Literal: "/api/notes"}}, ""},
		{"/api/notes/{id}", []Part{{Literal: "/api/notes/"}, {Name: "id", Tail: '/'}}, ""},
		{"/api/notes/{id}/archive", []Part{{Literal: "/api/notes/"}, {Name: "id", Tail: '/'}, {Literal: "/archive"}}, ""},
		{"/n/{id:[0-9]+}", []Part{{Literal: "/n/"}, {Name: "id", Regexp: "^[0-9]+$", Tail: '/'}}, ""},
		{"/n/{id:^[0-9]{3}$}/", []Part{{Literal: "/n/"}, {Name: "id", Regexp: "^[0-9]{3}$", Tail: '/'}, {Literal: "/"}}, ""},
		{"/n/{id:}", []Part{{Literal: "/n/"}, {Name: "id", Tail: '/'}}, ""},
		{"/f/{name}.{ext}", []Part{{Literal: "/f/"}, {Name: "name", Tail: '.'}, {Literal: "."}, {Name: "ext", Tail: '/'}}, ""},
		{"/{a}-{b}", []Part{{Literal: "/"}, {Name: "a", Tail: '-'}, {Literal: "-"}, {Name: "b", Tail: '/'}}, ""},
		{"/static/*", nil, ErrWildcard.Error()},
		{"/{a}/*", nil, ErrWildcard.Error()},
		{"notes", nil, `pattern "notes" does not begin with /`},
		{"/n/{id", nil, `pattern "/n/{id": a parameter's closing } is missing`},
		{"/n/{:x}", nil, `pattern "/n/{:x}": a parameter has no name`},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			got, err := Parse(tc.pattern)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("Parse = %v, %v; want error %q", got, err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Parse = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	if _, err := Parse("/x/*"); !errors.Is(err, ErrWildcard) {
		t.Errorf("Parse(/x/*) error %v, want ErrWildcard", err)
	}
}

func TestSegments(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		want    []Segment
	}{
		{"/", nil},
		{"/api/notes/", []Segment{{Literal: "api"}, {Literal: "notes"}}},
		{"/api/notes/{id}/archive", []Segment{{Literal: "api"}, {Literal: "notes"}, {Params: []string{"id"}}, {Literal: "archive"}}},
		{"/f/{name}.{ext}", []Segment{{Literal: "f"}, {Literal: ".", Params: []string{"name", "ext"}}}},
		{"/a//b/{x:[a-z/]+}/", []Segment{{Literal: "a"}, {Literal: "b"}, {Params: []string{"x"}}}},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			parts, err := Parse(tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if got := Segments(parts); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Segments = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/", "/"},
		{"/notes/", "/notes"},
		{"/notes/{id:[0-9]+}/", "/notes/{id}"},
		{"/a/{x:{[a-z]{2}}}.{ext}", "/a/{x}.{ext}"},
		{"/files/*", "/files/*"},
		{"notes", "notes"},
	} {
		if got := Key(tc.in); got != tc.want {
			t.Errorf("Key(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestJoin: the "/*/" of each mount, nested ones included, is the "/" a
// router serves there.
func TestJoin(t *testing.T) {
	for _, tc := range []struct{ parent, p, want string }{
		{"", "/notes", "/notes"},
		{"/api/*", "/notes", "/api/notes"},
		{"/api/*/*", "/avatar/{hash}.svg", "/api/avatar/{hash}.svg"}, // Route("/api") then Mount("/")
		{"", "/api/*/avatar/{hash}.svg", "/api/avatar/{hash}.svg"},   // as chi.Walk reports it
		{"/api/*/*/*", "/x", "/api/x"},
		{"/files/*", "", "/files/*"},
	} {
		if got := Join(tc.parent, tc.p); got != tc.want {
			t.Errorf("Join(%q, %q) = %q, want %q", tc.parent, tc.p, got, tc.want)
		}
	}
}
