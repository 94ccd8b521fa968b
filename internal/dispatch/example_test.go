package dispatch_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/internal/dispatch"
)

func ExampleReplay_Dispatch() {
	r := chi.NewRouter()
	r.Post("/get_weather", func(w http.ResponseWriter, r *http.Request) {
		args, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"asked":%s,"temp_c":21.5}`, args)
	})

	d := dispatch.NewReplay(r, 0)
	resp := d.Dispatch(context.Background(), &dispatch.Call{
		Path: "/get_weather",
		Body: []byte(`{"city":"Paris"}`), // the MCP client's arguments, unchanged
	})
	fmt.Println(resp.Status, resp.Header.Get("Content-Type"))
	fmt.Println(string(resp.Body))
	// Output:
	// 200 application/json
	// {"asked":{"city":"Paris"},"temp_c":21.5}
}

// Build a REST route's request from the arguments of a call, and dispatch
// it: the handler reads the same id and query an HTTP client would send.
func ExampleTemplate_Expand() {
	r := chi.NewRouter()
	r.Route("/api/notes", func(r chi.Router) {
		r.Get("/search", func(w http.ResponseWriter, r *http.Request) {})
		r.Get("/{id}", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "note %s, fields %s", chi.URLParam(r, "id"), r.URL.Query().Get("fields"))
		})
	})

	tpl, err := dispatch.NewTemplate(http.MethodGet, "/api/notes/{id}", r)
	if err != nil {
		panic(err)
	}
	uri, err := tpl.Expand(map[string]string{"id": "a b;c"}, url.Values{"fields": {"text,tags"}})
	fmt.Println(uri, err)
	resp := dispatch.NewReplay(r, 0).Dispatch(context.Background(), &dispatch.Call{Method: http.MethodGet, Path: uri})
	fmt.Println(resp.Status, string(resp.Body))

	// Values that would reach another route are refused.
	for _, id := range []string{"search", "../admin", ""} {
		_, err := tpl.Expand(map[string]string{"id": id}, nil)
		fmt.Println(err)
	}
	// Output:
	// /api/notes/a%20b;c?fields=text%2Ctags <nil>
	// 200 note a b;c, fields text,tags
	// path parameter "id" is "search": /api/notes/search is the path of another route, GET /api/notes/search
	// path parameter "id" is "../admin": a value cannot contain "/"
	// path parameter "id" is empty
}
