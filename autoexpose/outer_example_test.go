package autoexpose_test

import (
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/detector"
)

// requireAdmin is auth in a handler wrapped around the router.
func requireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/delete_all" && r.Header.Get("Authorization") != "Bearer admin" {
			http.Error(w, "admin only", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// A handler wrapped around the router is named as Config.Outer, so that
// tool calls replay through it too, with the Authorization header the MCP
// client sent; the server serves the Door, which serves that handler.
func ExampleConfig_outer() {
	cfg, err := autoexpose.ParseConfig([]byte(`
name: admin
expose_tools_over_mcp: true
`))
	if err != nil {
		log.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)

	r := chi.NewRouter()
	r.Post("/delete_all", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	cfg.Outer = requireAdmin // tool calls go through requireAdmin, with the client's Authorization

	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}
	detector.WriteTable(os.Stdout, door.Report())
	// The Door serves requireAdmin(r), NeMo Gym's prefix stripped first:
	// log.Fatal(http.ListenAndServe("127.0.0.1:8080", door))

	// Output:
	// TOOL        ROUTE             VERDICT  SCHEMA      REASON
	// delete_all  POST /delete_all  replay   permissive  Config.Outer: calls replay through the handler the server serves
}
