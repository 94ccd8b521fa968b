package detector

import (
	"strings"
	"testing"
)

func TestValidName(t *testing.T) {
	cases := []struct {
		name string
		want string // the error, "" when valid
	}{
		{"get_weather", ""},
		{"get-weather", ""},
		{"_", ""},
		{"-", ""},
		{"Tool9", ""},
		{strings.Repeat("a", 64), ""},
		{"", "tool name is empty"},
		{strings.Repeat("a", 65), `tool name "` + strings.Repeat("a", 65) + `" has 65 characters, more than 64`},
		{"..", `tool name ".." does not match ^[A-Za-z0-9_-]+$`},
		{"a/b", `tool name "a/b" does not match ^[A-Za-z0-9_-]+$`},
		{"/", `tool name "/" does not match ^[A-Za-z0-9_-]+$`},
		{"a%2Fb", `tool name "a%2Fb" does not match ^[A-Za-z0-9_-]+$`},
		{"get.weather", `tool name "get.weather" does not match ^[A-Za-z0-9_-]+$`},
		{"wetter_für_morgen", `tool name "wetter_für_morgen" does not match ^[A-Za-z0-9_-]+$`},
		{"get weather", `tool name "get weather" does not match ^[A-Za-z0-9_-]+$`},
		{"tool\n", `tool name "tool\n" does not match ^[A-Za-z0-9_-]+$`},
		{"a:b", `tool name "a:b" does not match ^[A-Za-z0-9_-]+$`},
		// 40 two-byte runes are 80 bytes: the rule, not the length, is what
		// the name breaks.
		{strings.Repeat("é", 40), `tool name "` + strings.Repeat("é", 40) + `" does not match ^[A-Za-z0-9_-]+$`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ValidName(c.name)
			var got string
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("ValidName(%q) = %q, want %q", c.name, got, c.want)
			}
		})
	}
}

func TestIsReserved(t *testing.T) {
	cases := map[string]bool{
		"seed_session":      true,
		"verify":            true,
		"aggregate_metrics": true,
		"mcp":               true,
		"/verify":           false, // names, not paths
		"Verify":            false,
		"mcp_tool":          false,
		"verify_answer":     false,
		"":                  false,
	}
	for name, want := range cases {
		if got := IsReserved(name); got != want {
			t.Errorf("IsReserved(%q) = %v, want %v", name, got, want)
		}
	}
}
