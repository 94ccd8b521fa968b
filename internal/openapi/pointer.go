package openapi

import (
	"strconv"
	"strings"
)

// A pointer is the place of a value in the document, as a JSON pointer
// names it: "#/paths/~1add_book/post/requestBody". Each step down is one
// link to the place above, so that going one level deeper costs the same
// at any depth; the string is made only when an error or a warning names
// the place. The nil *pointer is no place.
type pointer struct {
	up    *pointer
	key   string // a mapping key; at the top, the pointer as written: "#", "#/components/schemas/Pet"
	index int    // a list index, or -1 for a key
}

// at returns the pointer written ref: the document ("#") or the target
// of a $ref.
func at(ref string) *pointer { return &pointer{key: ref, index: -1} }

// child returns the place of the value of key k in the mapping at p.
func (p *pointer) child(k string) *pointer { return &pointer{up: p, key: k, index: -1} }

// elem returns the place of element i of the list at p.
func (p *pointer) elem(i int) *pointer { return &pointer{up: p, index: i} }

// String returns the JSON pointer, segments escaped. It keeps no
// reference to p or the places above it, so that they can live on the
// stack of the functions that descend the document.
func (p *pointer) String() string {
	if p == nil {
		return ""
	}
	n := 0
	q := p
	for ; q.up != nil; q = q.up {
		n += 1 + len(q.segment())
	}
	n += len(q.key)
	b := make([]byte, n)
	copy(b, q.key)
	for q = p; q.up != nil; q = q.up {
		seg := q.segment()
		n -= len(seg)
		copy(b[n:], seg)
		n--
		b[n] = '/'
	}
	return string(b)
}

// segment is the escaped segment of p.
func (p *pointer) segment() string {
	if p.index >= 0 {
		return strconv.Itoa(p.index)
	}
	return escape(p.key)
}

var (
	escaper   = strings.NewReplacer("~", "~0", "/", "~1")
	unescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// escape escapes a JSON pointer segment.
func escape(s string) string { return escaper.Replace(s) }

// unescape undoes escape.
func unescape(s string) string { return unescaper.Replace(s) }
