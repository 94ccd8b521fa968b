// Package header checks HTTP header names given in configuration.
package header

import "strings"

// ValidName reports whether name is an HTTP header field name: a non-empty
// token (RFC 9110, section 5.1).
func ValidName(name string) bool {
	return name != "" && strings.IndexFunc(name, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	}) < 0
}
