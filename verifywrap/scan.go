package verifywrap

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// span is the byte range [start, end) of one JSON value in a document. The
// zero span stands for a missing value: every real value is at least one byte
// long.
type span struct{ start, end int }

// scanner walks a document that json.Valid has accepted. It trusts that
// verdict, so it reports no syntax errors and holds nothing but a position.
// It never recurses, so nesting depth cannot exhaust the stack.
type scanner struct {
	data []byte
	pos  int
}

// rootOf returns the span of the single value data holds, without the
// whitespace around it.
func rootOf(data []byte) span {
	s := scanner{data: data}
	return s.value()
}

// value returns the span of the value at the scanner's position and moves
// past it.
func (s *scanner) value() span {
	s.skipSpace()
	start := s.pos
	switch s.data[s.pos] {
	case '"':
		s.skipString()
	case '{', '[':
		s.pos++
		for depth := 1; depth > 0; {
			switch s.data[s.pos] {
			case '"':
				s.skipString()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.pos++
		}
	default: // number, true, false or null
		for s.pos < len(s.data) && !isDelimiter(s.data[s.pos]) {
			s.pos++
		}
	}
	return span{start, s.pos}
}

// skipString moves past the string literal at the scanner's position. In a
// valid literal, a quote ends it unless an odd run of backslashes comes
// right before it; so it jumps from quote to quote, which IndexByte finds
// many bytes at a time.
func (s *scanner) skipString() {
	s.pos++ // opening quote
	for {
		s.pos += bytes.IndexByte(s.data[s.pos:], '"')
		slashes := 0
		for i := s.pos - 1; s.data[i] == '\\'; i-- {
			slashes++
		}
		s.pos++
		if slashes%2 == 0 {
			return
		}
	}
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) && isSpace(s.data[s.pos]) {
		s.pos++
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isDelimiter(c byte) bool { return isSpace(c) || c == ',' || c == '}' || c == ']' }

// members calls fn with the decoded key and the value span of each member of
// the object at obj, in document order. It does nothing when obj is missing or
// not an object. The key is only valid during the call: most keys are bytes
// of data, read in place.
func members(data []byte, obj span, fn func(key []byte, v span)) {
	if obj.end == 0 || data[obj.start] != '{' {
		return
	}
	s := scanner{data: data, pos: obj.start + 1}
	for {
		s.skipSpace()
		switch data[s.pos] {
		case '}':
			return
		case ',':
			s.pos++
			continue
		}
		key := s.value()
		s.skipSpace()
		s.pos++ // colon
		fn(decodeKey(data[key.start:key.end]), s.value())
	}
}

// elements calls fn with the span of each element of the array at arr, in
// order. It does nothing when arr is missing or not an array.
func elements(data []byte, arr span, fn func(v span)) {
	if arr.end == 0 || data[arr.start] != '[' {
		return
	}
	s := scanner{data: data, pos: arr.start + 1}
	for {
		s.skipSpace()
		switch data[s.pos] {
		case ']':
			return
		case ',':
			s.pos++
			continue
		}
		fn(s.value())
	}
}

// stringAt returns the string at v, and false when v is missing or not a
// string.
func stringAt(data []byte, v span) (string, bool) {
	if v.end == 0 || data[v.start] != '"' {
		return "", false
	}
	return decodeString(data[v.start:v.end]), true
}

// decodeKey returns the value of a valid JSON string literal as decodeString
// does, without a copy when the literal needs no decoding.
func decodeKey(lit []byte) []byte {
	inner := lit[1 : len(lit)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner
	}
	return []byte(decodeString(lit))
}

// decodeString returns the value of a valid JSON string literal exactly as
// encoding/json decodes it, invalid UTF-8 included, so keys and call_ids
// compare the way the verifier will see them.
func decodeString(lit []byte) string {
	inner := lit[1 : len(lit)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(lit, &s) // cannot fail: lit is a valid string literal
	return s
}
