package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/detector"
	"github.com/mcpdoor/mcpdoor/examples/rest/server"
	"github.com/mcpdoor/mcpdoor/replay"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// restOptions is how the example is read: every method, GET included, and
// two routes named in the config (see server.yaml).
var restOptions = &detector.RESTOptions{
	Methods: []string{"POST", "PUT", "PATCH", "DELETE", "GET"},
	Names: map[string]string{
		"GET /api/notes/search": "search_notes",
		"GET /api/admin/stats":  "admin_stats",
	},
}

// TestTools: the REST reading of the example, unchanged: each route a
// tool with a readable name, replayed through the auth middlewares.
func TestTools(t *testing.T) {
	rep, err := detector.Inspect(server.New(server.Config{}), &detector.Options{REST: restOptions})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.WriteTable(&buf); err != nil {
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
	if len(rep.Problems) > 0 {
		t.Errorf("problems: %v", rep.Problems)
	}
}

// hostileValues are path parameter values that try to reach another
// route, or to confuse the one they are for.
var hostileValues = []string{
	"..", ".", "/", "a/b", "../admin", "..%2Fadmin", "%2F", "%252F", "", " ", "search",
	"1/archive", "1?x=1", "1#frag", "1;x", "%", "caf\u00e9", "\u202e", "\x00", "a\nb",
	"*", "{id}", "-1", "01", "1.0", "ann", "ANN", "ann/notes",
}

// TestHostileValues: for each route with path parameters, every hostile
// value is either refused before any request is made (a *ParamError, which
// the MCP door answers with isError), or reaches that very route with that
// very value and gets the route's own answer: for a note, its 404 naming
// the value; for the admin purge, its count. None reaches another route.
func TestHostileValues(t *testing.T) {
	r := server.New(server.Config{})
	rep, err := detector.Inspect(r, &detector.Options{REST: restOptions})
	if err != nil {
		t.Fatal(err)
	}
	var routes int
	for _, rt := range rep.Tools() {
		if len(rt.Params) == 0 {
			continue
		}
		routes++
		t.Run(rt.Name, func(t *testing.T) {
			tpl, err := replay.NewTemplate(rt.Method, rt.Pattern, r)
			if err != nil {
				t.Fatal(err)
			}
			d := dispatcher(rt, r)
			token := "demo-token"
			if strings.HasPrefix(rt.Pattern, "/api/admin/") {
				token = "admin-token"
			}
			var sent, refused int
			for _, v := range hostileValues {
				uri, err := tpl.Expand(map[string]string{rt.Params[0].Name: v}, nil)
				var pe *replay.ParamError
				if errors.As(err, &pe) {
					refused++
					continue
				}
				if err != nil {
					t.Fatalf("Expand(%q): %v", v, err)
				}
				sent++
				body := []byte(nil)
				if rt.Method == http.MethodPatch {
					body = []byte(`{"text":"x"}`)
				}
				resp := d.Dispatch(context.Background(), &replay.Call{
					Method: rt.Method, Path: uri, Body: body,
					Header: http.Header{"Authorization": {"Bearer " + token}},
				})
				want := fmt.Sprintf(`{"error":%s}`+"\n", quote(fmt.Sprintf("no note %q", v)))
				status := http.StatusNotFound
				if rt.Name == "delete_admin_user_notes" {
					want, status = `{"deleted":0}`+"\n", http.StatusOK
				}
				if resp.Status != status || string(resp.Body) != want {
					t.Errorf("%s %s (%q as %s): %d %s\nwant the route's own %d %s", rt.Method, rt.Pattern, v, uri, resp.Status, resp.Body, status, want)
				}
			}
			if sent == 0 || refused == 0 {
				t.Errorf("%d values sent, %d refused; the test wants both kinds", sent, refused)
			}
		})
	}
	if routes != 5 {
		t.Errorf("%d routes with parameters, want 5", routes)
	}
}

// dispatcher is the dispatcher the route's verdict calls for.
func dispatcher(rt detector.Route, r chi.Router) replay.Dispatcher {
	if rt.Verdict == detector.Direct {
		return replay.NewDirect(rt.Endpoint, rt.Pattern, r, 0)
	}
	return replay.NewReplay(r, 0)
}

// quote is s as a JSON string, as encoding/json writes it.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
