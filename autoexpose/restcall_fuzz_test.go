package autoexpose

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FuzzRESTArguments drives a REST tool's arguments apart and to its route,
// for a route with a body (PATCH: the members but the path parameter are
// the body) and one without (GET: they are the query). For any arguments:
//   - nothing panics;
//   - arguments that are not an object, or whose id is not a string, are
//     refused by the schema; an id the route's path cannot carry is refused
//     naming it; in both cases the route does not run;
//   - otherwise the route runs, and sees the id as its URL parameter, the
//     body as the other members (the same JSON value as the arguments
//     without id), or the query as the other members' texts.
func FuzzRESTArguments(f *testing.F) {
	var saw *seen
	record := func(w http.ResponseWriter, r *http.Request) {
		rec := &recorderView{}
		look(rec, r)
		saw = new(seen)
		json.Unmarshal(rec.buf.Bytes(), saw)
		w.WriteHeader(http.StatusNoContent)
	}
	r := chi.NewRouter()
	r.Get("/n/{id}", record)
	r.Patch("/n/{id}", record)
	r.Get("/n/search", record)
	d, err := Install(r, enabled(MCPConfig{REST: &REST{Methods: []string{"GET", "PATCH"}}}))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range []string{"get_n", "update_n"} {
		if d.tools[name] == nil {
			f.Fatalf("no tool %s: %v", name, d.names)
		}
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		for _, name := range []string{"get_n", "update_n"} {
			saw = nil
			tl := d.tools[name]
			res := d.calls.callResult(t.Context(), tl, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name, Arguments: json.RawMessage(args)}})
			var obj map[string]any
			dec := json.NewDecoder(bytes.NewReader(args))
			dec.UseNumber()
			isObject := len(bytes.TrimSpace(args)) > 0 && dec.Decode(&obj) == nil && obj != nil && !dec.More()
			id, idOK := obj["id"].(string)
			if res.IsError {
				text := res.Content[0].(*mcp.TextContent).Text
				if saw != nil {
					t.Fatalf("%s: refused (%s), yet the route ran", name, text)
				}
				bySchema := strings.Contains(text, "checked against its input schema")
				byPath := strings.Contains(text, "was not called): path parameter \"id\"")
				badJSON := strings.Contains(text, "arguments are not valid JSON") // a number past float64
				if !bySchema && !byPath || bySchema && isObject && idOK && id != "" && !badJSON || byPath && (!isObject || !idOK) {
					t.Fatalf("%s %q: refused: %s", name, args, text)
				}
				continue
			}
			if !isObject || !idOK || saw == nil {
				t.Fatalf("%s %q: not refused (%v), route ran %v", name, args, res.Content, saw != nil)
			}
			if saw.Params["id"] != id {
				t.Fatalf("%s %q: the route saw id %q, want %q", name, args, saw.Params["id"], id)
			}
			delete(obj, "id")
			if name == "update_n" {
				var body map[string]any
				dec := json.NewDecoder(strings.NewReader(saw.Body))
				dec.UseNumber()
				if err := dec.Decode(&body); err != nil || !reflect.DeepEqual(body, obj) && !(len(body) == 0 && len(obj) == 0) {
					t.Fatalf("%s %q: body %q (%v), want the arguments without id", name, args, saw.Body, err)
				}
				continue
			}
			for k, v := range obj {
				var want any
				switch v := v.(type) {
				case nil:
					continue
				case string:
					want = v
				case json.Number:
					want = string(v)
				case bool:
					want = map[bool]string{true: "true", false: "false"}[v]
				default:
					// An object is sent as its JSON, a list as the key
					// repeated (none for an empty list, as a form does).
					_, ok := saw.Query[k]
					if items, isList := v.([]any); ok != (!isList || slices.ContainsFunc(items, func(v any) bool { return v != nil })) {
						t.Fatalf("%s %q: query parameter %q sent: %v", name, args, k, ok)
					}
					continue
				}
				if got := saw.Query[k]; got != want {
					t.Fatalf("%s %q: query parameter %q is %v, want %v", name, args, k, got, want)
				}
			}
		}
	})
}

// recorderView is a ResponseWriter that keeps the body.
type recorderView struct {
	buf bytes.Buffer
	h   http.Header
}

func (r *recorderView) Header() http.Header {
	if r.h == nil {
		r.h = http.Header{}
	}
	return r.h
}
func (r *recorderView) Write(b []byte) (int, error) { return r.buf.Write(b) }
func (r *recorderView) WriteHeader(int)             {}
