package wire

import (
	"bytes"
	"encoding/json"
)

// The JSON scanner the door reads a REST call's arguments and a fast-path
// request with: it walks JSON text in place, each value handed on as the
// bytes the client wrote, where decoding would copy them.

// Members calls f with each member of the JSON object data, in order: its
// key and its value, each the JSON text as written (the key with its
// quotes), until f returns false. It reports whether data is an object
// whose every member f took. data should be valid JSON; where it is not,
// Members reports false rather than read past it.
func Members(data []byte, f func(key, value []byte) bool) bool {
	i := SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return true
	}
	for i < len(data) {
		end := SkipString(data, i)
		if end < 0 {
			return false
		}
		key := data[i:end]
		i = SkipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		i = SkipSpace(data, i+1)
		vend := SkipValue(data, i)
		if vend < 0 || !f(key, data[i:vend]) {
			return false
		}
		i = SkipSpace(data, vend)
		if i >= len(data) {
			return false
		}
		if data[i] == '}' {
			return true
		}
		if data[i] != ',' {
			return false
		}
		i = SkipSpace(data, i+1)
	}
	return false
}

// SkipSpace returns the index of the first byte of data from i on that is
// not JSON whitespace.
func SkipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// SkipString returns the index just past the JSON string at data[i], or -1
// when there is none. It jumps from quote to quote, so a long string costs
// little more than a search for its end.
func SkipString(data []byte, i int) int {
	if i >= len(data) || data[i] != '"' {
		return -1
	}
	for i++; ; {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		backslashes := 0
		for k := i - 1; data[k] == '\\'; k-- { // stops at the opening quote
			backslashes++
		}
		i++
		if backslashes%2 == 0 {
			return i
		}
	}
}

// SkipValue returns the index just past the JSON value at data[i], or -1
// when a string or an object or array there does not end.
func SkipValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return SkipString(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				end := SkipString(data, i)
				if end < 0 {
					return -1
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	for ; i < len(data); i++ {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// Unquote decodes the JSON string s.
func Unquote(s []byte) string {
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s[1 : len(s)-1])
	}
	var out string
	json.Unmarshal(s, &out)
	return out
}
