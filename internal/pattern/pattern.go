// Package pattern reads chi route patterns ("/api/notes/{id:[0-9]+}/archive")
// into their literal text and parameters, the way chi's router reads them,
// so that the detector and the dispatchers agree with chi on what a pattern
// means.
package pattern

import (
	"errors"
	"fmt"
	"strings"
)

// A Part is one piece of a pattern: literal text, or one parameter.
type Part struct {
	// Literal is text a path must hold as is; empty for a parameter.
	Literal string
	// Name is the parameter's name; empty for literal text.
	Name string
	// Regexp is the regular expression chi matches the parameter's value
	// with, anchored as chi anchors it ("{id:[0-9]+}" gives "^[0-9]+$"), or
	// "" for a plain {name}.
	Regexp string
	// Tail is the byte that ends the parameter's value in a path: the byte
	// that follows the parameter in the pattern, or '/' at its end.
	Tail byte
}

// ErrWildcard is returned for a pattern with a "*" wildcard, which matches
// any rest of a path rather than fixed parameters.
var ErrWildcard = errors.New("the pattern ends in a * wildcard")

// Parse splits p into parts, as chi splits it when the route is added: a
// "{" opens a parameter that the matching "}" closes (a regexp may hold
// braces of its own), and the name ends at the first ":".
func Parse(p string) ([]Part, error) {
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("pattern %q does not begin with /", p)
	}
	var parts []Part
	for p != "" {
		open := strings.IndexByte(p, '{')
		if star := strings.IndexByte(p, '*'); star >= 0 && (open < 0 || star < open) {
			return nil, ErrWildcard
		}
		if open < 0 {
			parts = append(parts, Part{Literal: p})
			break
		}
		if open > 0 {
			parts = append(parts, Part{Literal: p[:open]})
		}
		end, depth := -1, 0
		for i := open; i < len(p); i++ {
			switch p[i] {
			case '{':
				depth++
			case '}':
				depth--
			}
			if depth == 0 {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, fmt.Errorf("pattern %q: a parameter's closing } is missing", p)
		}
		name, rex, isRexp := strings.Cut(p[open+1:end], ":")
		if name == "" {
			return nil, fmt.Errorf("pattern %q: a parameter has no name", p)
		}
		part := Part{Name: name, Tail: '/'}
		if isRexp && rex != "" {
			if !strings.HasPrefix(rex, "^") {
				rex = "^" + rex
			}
			if !strings.HasSuffix(rex, "$") {
				rex += "$"
			}
			part.Regexp = rex
		}
		p = p[end+1:]
		if p != "" {
			part.Tail = p[0]
		}
		parts = append(parts, part)
	}
	return parts, nil
}

// Params returns the names of parts' parameters, in order.
func Params(parts []Part) []string {
	var names []string
	for _, pt := range parts {
		if pt.Name != "" {
			names = append(names, pt.Name)
		}
	}
	return names
}

// A Segment is one "/"-separated segment of a pattern: its literal text,
// and the parameters it holds ("{id}" alone, or "{name}.{ext}").
type Segment struct {
	Literal string // the segment's literal text, parameters left out
	Params  []string
}

// Segments splits parts into path segments. Empty segments (the pattern's
// leading "/", a trailing "/", or "//") are left out.
func Segments(parts []Part) []Segment {
	var segs []Segment
	var cur Segment
	push := func() {
		if cur.Literal != "" || len(cur.Params) > 0 {
			segs = append(segs, cur)
		}
		cur = Segment{}
	}
	for _, pt := range parts {
		if pt.Name != "" {
			cur.Params = append(cur.Params, pt.Name)
			continue
		}
		for i, s := range strings.Split(pt.Literal, "/") {
			if i > 0 {
				push()
			}
			cur.Literal += s
		}
	}
	push()
	return segs
}

// Key returns p with chi regexps and a trailing slash left out:
// "/notes/{id:[0-9]+}/" is "/notes/{id}". Two patterns with the same key
// name the same route in a config or a document that leaves those out (an
// OpenAPI path). A pattern that does not parse is its own key.
func Key(p string) string {
	s := Shape(p)
	if len(s) > 1 {
		s = strings.TrimSuffix(s, "/")
	}
	return s
}

// Join returns the pattern a router serves for a route's pattern under its
// mounts' (parent ends in "/*" for each mount, as chi.Walk joins them):
// each "/*/" of a mount is the "/" it stands for, also for a Mount("/")
// nested in a Route, which chi.Walk leaves as "/api/*/avatar" (the
// replacement of one "/*/" makes the next).
func Join(parent, p string) string {
	s := parent + p
	for strings.Contains(s, "/*/") {
		s = strings.ReplaceAll(s, "/*/", "/")
	}
	return s
}

// Shape returns p with chi regexps left out, and its trailing slash kept:
// "/notes/{id:[0-9]+}/" is "/notes/{id}/". Two patterns of one shape
// match the same paths, as far as their parameters' regexps allow; a
// trailing slash makes another route. A pattern that does not parse is
// its own shape.
func Shape(p string) string {
	parts, err := Parse(p)
	if err != nil {
		return p
	}
	var b strings.Builder
	for _, pt := range parts {
		if pt.Name != "" {
			b.WriteString("{" + pt.Name + "}")
		} else {
			b.WriteString(pt.Literal)
		}
	}
	return b.String()
}

// SplitKey splits a route key as a config writes it, a method, a space and
// a pattern ("GET /notes/{id}", "get /notes/{id}"), into the method,
// upper-cased, and the pattern, spaces trimmed; ok is false when the key
// has no space.
func SplitKey(key string) (method, p string, ok bool) {
	method, p, ok = strings.Cut(strings.TrimSpace(key), " ")
	return strings.ToUpper(method), strings.TrimSpace(p), ok
}
