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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	out, err := value(dst, dec, 0)
	if err == nil {
		if _, more := dec.Token(); more != io.EOF {
			err = errors.New("text after the value")
		}
	}
	if err != nil {
		return dst, fmt.Errorf("mcpdoor: canonical JSON: %w: %v", ErrInvalid, err)
	}
	return out, nil
}

// value writes the next value of dec.
func value(dst []byte, dec *json.Decoder, depth int) ([]byte, error) {
	tok, err := dec.Token()
	if err != nil {
		return dst, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= MaxDepth {
			return dst, fmt.Errorf("nested deeper than %d", MaxDepth)
		}
		if t == '[' {
			return array(dst, dec, depth+1)
		}
		return object(dst, dec, depth+1)
	case string:
		return appendString(dst, t), nil
	case json.Number:
		return appendNumber(dst, string(t))
	case bool:
		return strconv.AppendBool(dst, t), nil
	case nil:
		return append(dst, "null"...), nil
	}
	return dst, fmt.Errorf("unexpected token %v", tok)
}

func array(dst []byte, dec *json.Decoder, depth int) ([]byte, error) {
	dst = append(dst, '[')
	for i := 0; dec.More(); i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = value(dst, dec, depth); err != nil {
			return dst, err
		}
	}
	if _, err := dec.Token(); err != nil { // ']'
		return dst, err
	}
	return append(dst, ']'), nil
}

// member is an object member: its name and its value, written.
type member struct {
	name  string
	key   []uint16 // name in UTF-16, the order of RFC 8785
	value []byte
}

func object(dst []byte, dec *json.Decoder, depth int) ([]byte, error) {
	var members []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return dst, err
		}
		name, _ := tok.(string)
		v, err := value(nil, dec, depth)
		if err != nil {
			return dst, err
		}
		members = append(members, member{name: name, key: utf16.Encode([]rune(name)), value: v})
	}
	if _, err := dec.Token(); err != nil { // '}'
		return dst, err
	}
	slices.SortFunc(members, func(a, b member) int { return slices.Compare(a.key, b.key) })
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
