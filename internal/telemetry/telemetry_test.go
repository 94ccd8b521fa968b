package telemetry

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestClipped: a value from a request is cut to valueMax bytes, never
// inside a character, and a short one is kept whole.
func TestClipped(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int // bytes kept
	}{
		{"", 0},
		{"7", 1},
		{strings.Repeat("x", valueMax), valueMax},
		{strings.Repeat("x", valueMax+1), valueMax},
		{strings.Repeat("x", valueMax-1) + "é", valueMax - 1}, // é is 2 bytes: it would end past the cut
		{strings.Repeat("€", 200), valueMax - valueMax%3},     // € is 3 bytes
	} {
		got := clipped(c.in)
		if len(got) != c.want || !strings.HasPrefix(c.in, got) || !utf8.ValidString(got) {
			t.Errorf("clipped(%d bytes %.8q...) = %d bytes %.8q..., want the first %d bytes", len(c.in), c.in, len(got), got, c.want)
		}
	}
}

// TestProtocolLabel: mcp.protocol.version is a version the go-sdk knows,
// or _OTHER; a request that names none has none.
func TestProtocolLabel(t *testing.T) {
	for in, want := range map[string]string{
		"":                        "",
		"2025-11-25":              "2025-11-25",
		"2024-11-05":              "2024-11-05",
		"2026-07-28":              "2026-07-28",
		"1999-01-01":              valueOther,
		strings.Repeat("9", 1000): valueOther,
	} {
		if got := protocolLabel(in); got != want {
			t.Errorf("protocolLabel(%.20q) = %q, want %q", in, got, want)
		}
	}
}
