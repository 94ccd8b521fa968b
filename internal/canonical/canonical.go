// Package canonical writes JSON in its canonical form, so that two texts
// of one value compare equal byte for byte: the form of RFC 8785 (the JSON
// Canonicalization Scheme). Object members are sorted by their names'
// UTF-16 code units, there is no whitespace between tokens, strings are
// written with the fewest escapes (only '"', '\\' and the control
// characters, as \b \f \n \r \t or \u00xx), and numbers as ECMAScript
// writes a double: 1.0, 1e0 and 1 are all 1, and 1e21 is 1e+21.
//
// A duplicate member name, a number outside a double's range and nesting
// deeper than MaxDepth are errors: such a text has no canonical form.
package canonical

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is how deeply a text may nest arrays and objects.
const MaxDepth = 1000

// ErrInvalid is wrapped by the errors of a text without a canonical form.
var ErrInvalid = errors.New("no canonical JSON form")

// Append appends the canonical form of the JSON text data to dst. A text
// that is not one valid JSON value, or that has no canonical form, is an
// error wrapping ErrInvalid, and dst comes back as it was.
func Append(dst, data []byte) ([]byte, error) {
	if !json.Valid(data) {
		return dst, fmt.Errorf("mcpdoor: canonical JSON: %w: not valid JSON", ErrInvalid)
	}
	w := writer{data: data}
	out, err := w.value(dst, 0)
	if err != nil {
		return dst, fmt.Errorf("mcpdoor: canonical JSON: %w: %v", ErrInvalid, err)
	}
	return out, nil
}

// A writer walks a text json.Valid has accepted, writing its canonical
// form as it goes: it trusts that verdict, and checks no syntax.
type writer struct {
	data []byte
	pos  int
}

func (w *writer) skipSpace() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

// value writes the value at w.pos and moves past it.
func (w *writer) value(dst []byte, depth int) ([]byte, error) {
	w.skipSpace()
	switch c := w.data[w.pos]; {
	case c == '{' || c == '[':
		if depth >= MaxDepth {
			return dst, fmt.Errorf("nested deeper than %d", MaxDepth)
		}
		if c == '[' {
			return w.array(dst, depth+1)
		}
		return w.object(dst, depth+1)
	case c == '"':
		s := w.str()
		return appendString(dst, s), nil
	case c == 't':
		w.pos += 4
		return append(dst, "true"...), nil
	case c == 'f':
		w.pos += 5
		return append(dst, "false"...), nil
	case c == 'n':
		w.pos += 4
		return append(dst, "null"...), nil
	}
	start := w.pos
	for w.pos < len(w.data) && strings.IndexByte("+-0123456789.eE", w.data[w.pos]) >= 0 {
		w.pos++
	}
	return appendNumber(dst, string(w.data[start:w.pos]))
}

// str decodes the string literal at w.pos and moves past it.
func (w *writer) str() string {
	start := w.pos
	w.pos++
	plain := true
	for {
		c := w.data[w.pos]
		if c == '"' {
			break
		}
		if c == '\\' {
			plain = false
			w.pos++
		} else if c >= utf8.RuneSelf {
			plain = false
		}
		w.pos++
	}
	w.pos++
	lit := w.data[start:w.pos]
	if plain {
		return string(lit[1 : len(lit)-1])
	}
	var s string
	json.Unmarshal(lit, &s) // valid: escapes decoded, bad UTF-8 made U+FFFD
	return s
}

func (w *writer) array(dst []byte, depth int) ([]byte, error) {
	w.pos++ // [
	dst = append(dst, '[')
	for first := true; ; first = false {
		w.skipSpace()
		switch w.data[w.pos] {
		case ']':
			w.pos++
			return append(dst, ']'), nil
		case ',':
			w.pos++
		}
		if !first {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = w.value(dst, depth); err != nil {
			return dst, err
		}
	}
}

// member is an object member: its name and its value, written.
type member struct {
	name  string
	value []byte
}

func (w *writer) object(dst []byte, depth int) ([]byte, error) {
	w.pos++ // {
	var members []member
	for {
		w.skipSpace()
		switch w.data[w.pos] {
		case '}':
			w.pos++
			return writeObject(dst, members)
		case ',':
			w.pos++
			w.skipSpace()
		}
		name := w.str()
		w.skipSpace()
		w.pos++ // :
		v, err := w.value(nil, depth)
		if err != nil {
			return dst, err
		}
		members = append(members, member{name: name, value: v})
	}
}

func writeObject(dst []byte, members []member) ([]byte, error) {
	slices.SortStableFunc(members, func(a, b member) int { return compareUTF16(a.name, b.name) })
	dst = append(dst, '{')
	for i, m := range members {
		if i > 0 {
			if m.name == members[i-1].name {
				return dst, fmt.Errorf("duplicate member %q", m.name)
			}
			dst = append(dst, ',')
		}
		dst = appendString(dst, m.name)
		dst = append(dst, ':')
		dst = append(dst, m.value...)
	}
	return append(dst, '}'), nil
}

// compareUTF16 orders a and b by their UTF-16 code units, the order of
// RFC 8785; for ASCII names, their bytes' order.
func compareUTF16(a, b string) int {
	if isASCII(a) && isASCII(b) {
		return strings.Compare(a, b)
	}
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// appendString writes s as RFC 8785 does. s is valid UTF-8: the decoder
// replaced what was not with U+FFFD.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			dst = utf8.AppendRune(dst, r)
			i += n
			continue
		}
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
		i++
	}
	return append(dst, '"')
}

// appendNumber writes the JSON number lit as ECMAScript's
// Number.prototype.toString writes the double nearest it.
func appendNumber(dst []byte, lit string) ([]byte, error) {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) {
		return dst, fmt.Errorf("number %s is outside a double's range", lit)
	}
	if f == 0 {
		return append(dst, '0'), nil // -0 too
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// The shortest digits that round-trip, and where the point goes.
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±x
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1 // n: the digits before the point
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst, nil
}
