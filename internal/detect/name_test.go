package detect

import (
	"net/http"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"
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

// TestReservedByOptions: a name is reserved only when Options.Reserved
// lists it, or it is the MCP endpoint's.
func TestReservedByOptions(t *testing.T) {
	r := chi.NewRouter()
	for _, p := range []string{"/seed_session", "/verify", "/mcp_tool", "/rpc"} {
		r.Post(p, func(http.ResponseWriter, *http.Request) {})
	}
	for _, c := range []struct {
		opts *Options
		want []string
	}{
		{nil, []string{"mcp_tool", "rpc", "seed_session", "verify"}},
		{&Options{Reserved: []string{"seed_session", "verify"}}, []string{"mcp_tool", "rpc"}},
		{&Options{MCPPath: "/rpc"}, []string{"mcp_tool", "seed_session", "verify"}},
	} {
		rep, err := Inspect(r, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, names(rep.Tools())); diff != "" {
			t.Errorf("%+v: tools (-want +got):\n%s", c.opts, diff)
		}
	}
}
