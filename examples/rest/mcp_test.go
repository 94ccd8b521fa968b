package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/autoexpose/autoexposetest"
	"github.com/mcpdoor/mcpdoor/detector"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// testDoor serves the example as its main does: server.yaml's config, the
// declarations, the door over the router.
func testDoor(t *testing.T) (http.Handler, *autoexpose.Door) {
	t.Helper()
	return testDoorDeclaring(t, nil)
}

// testDoorDeclaring is testDoor with Config.Declared set to declared, when
// it is not nil (an empty map: nothing declared).
func testDoorDeclaring(t *testing.T, declared map[string]autoexpose.Declaration) (http.Handler, *autoexpose.Door) {
	t.Helper()
	cfg, err := autoexpose.LoadConfig("server.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.MCP.SessionSecret = []string{"the rest example's test secret, 32 bytes or more"}
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.Declared = declared
	d, err := newServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, d
}

// TestTools: the REST reading of the example, unchanged: each route a
// tool with a readable name, replayed through the auth middlewares.
func TestTools(t *testing.T) {
	_, d := testDoor(t)
	var buf bytes.Buffer
	if err := detector.WriteTable(&buf, d.Report()); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "tools.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestTools -update to write it)", err)
	}
	if got := buf.String(); got != string(want) {
		t.Errorf("the report is\n%s\nwant (%s)\n%s", got, golden, want)
	}
}

// hostileValues are path parameter values that try to reach another
// route, or to confuse the one they are for.
var hostileValues = []string{
	"..", ".", "/", "a/b", "../admin", "..%2Fadmin", "%2F", "%252F", "", " ", "search",
	"1/archive", "1?x=1", "1#frag", "1;x", "%", "caf\u00e9", "\u202e", "\x00", "a\nb",
	"*", "{id}", "-1", "01", "1.0", "ann", "ANN", "ann/notes", "../../stats", "stats",
}

// TestHostileValues: for each tool with a path parameter, every hostile
// value, sent over MCP, is either refused before any request is made
// (isError, code invalid_arguments naming the parameter: the input schema
// or the route's pattern refuses it), or reaches that very route with that
// very value and gets the route's own answer: for a note, its 404 naming
// the value; for the admin purge, its count. None reaches another route.
// With the example's declarations, an id is digits; without, any text,
// which the route's path must carry.
func TestHostileValues(t *testing.T) {
	for _, declared := range []bool{true, false} {
		t.Run(fmt.Sprintf("declared=%v", declared), func(t *testing.T) {
			var decls map[string]autoexpose.Declaration
			if !declared {
				decls = map[string]autoexpose.Declaration{}
			}
			hostileValuesOn(t, decls)
		})
	}
}

func hostileValuesOn(t *testing.T, declared map[string]autoexpose.Declaration) {
	h, d := testDoorDeclaring(t, declared)
	ts := autoexposetest.NewServer(t, h, d)
	connect := func(token string) *mcp.ClientSession {
		t.Helper()
		c := ts.Client()
		c.HTTP.Transport = bearerTransport{token: token, base: c.HTTP.Transport}
		return c.Connect(t, nil)
	}
	user, admin := connect("demo-token"), connect("admin-token")

	var tools int
	for _, row := range d.Report() {
		param, isPath := strings.CutSuffix(strings.Split(row.Arguments, ";")[0], " (path)")
		if row.Tool == "" || !isPath {
			continue
		}
		tools++
		t.Run(row.Tool, func(t *testing.T) {
			cs := user
			if strings.HasPrefix(row.Route, "DELETE /api/admin/") {
				cs = admin
			}
			var sent, refused int
			for _, v := range hostileValues {
				args := map[string]any{param: v}
				if strings.HasPrefix(row.Route, "PATCH ") {
					args["text"] = "x"
				}
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: row.Tool, Arguments: args})
				if err != nil {
					t.Fatalf("%q: %v", v, err)
				}
				var got struct {
					Error struct {
						Code    string   `json:"code"`
						Message string   `json:"message"`
						Fields  []string `json:"fields"`
						Status  int      `json:"status"`
						Effect  string   `json:"effect"`
					} `json:"error"`
					Deleted *int `json:"deleted"`
				}
				b, _ := json.Marshal(res.StructuredContent)
				json.Unmarshal(b, &got)
				text := res.Content[0].(*mcp.TextContent).Text
				switch {
				case res.IsError && got.Error.Code == "invalid_arguments" && got.Error.Effect == "not_applied" &&
					strings.Contains(text, ": Invalid arguments for "+row.Tool+" (") && strings.HasPrefix(text, "HTTP 422 from ") && slices.Equal(got.Error.Fields, []string{param}):
					refused++
				case row.Tool == "delete_admin_user_notes" && !res.IsError && got.Deleted != nil && *got.Deleted == 0:
					sent++
				case res.IsError && got.Error.Status == http.StatusNotFound && got.Error.Message == fmt.Sprintf("no note %q", v) &&
					strings.HasPrefix(text, "HTTP 404 from "+row.Route+": "):
					sent++
				default:
					t.Errorf("%s (%q): %s %s\nwant it refused (invalid_arguments) or the route's own answer", row.Route, v, text, b)
				}
			}
			t.Logf("%d values sent, %d refused", sent, refused)
			if sent == 0 || refused == 0 {
				t.Errorf("%d values sent, %d refused; the test wants both kinds", sent, refused)
			}
		})
	}
	if tools != 5 {
		t.Errorf("%d tools with path parameters, want 5", tools)
	}
}

// bearerTransport is a client transport that sends a bearer token on every
// request, through base (nil: http.DefaultTransport).
type bearerTransport struct {
	token string
	base  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	if b.base == nil {
		return http.DefaultTransport.RoundTrip(r)
	}
	return b.base.RoundTrip(r)
}
