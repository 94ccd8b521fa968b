package autoexpose_test

import (
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
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

// A server that serves a handler wrapped around its router names it as
// Config.Outer, so that tool calls replay through it too, with the
// Authorization header the MCP client sent.
func ExampleConfig_outer() {
	cfg, err := autoexpose.ParseConfig([]byte(`
name: admin
expose_tools_over_mcp: true
mcp:
  rollout: false
`))
	if err != nil {
		log.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)

	r := chi.NewRouter()
	r.Post("/delete_all", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	served := requireAdmin(r)
	cfg.Outer = served

	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}
	door.WriteReport(os.Stdout)
	// log.Fatal(http.ListenAndServe("127.0.0.1:8080", served))

	// Output:
	// TOOL        ROUTE             VERDICT  SCHEMA      REASON
	// delete_all  POST /delete_all  replay   permissive  Config.Outer: calls replay through the handler the server serves
}

// A handler reads the NeMo Gym rollout a request came under with
// RolloutID; a request without the prefix has none.
func ExampleRolloutID() {
	cfg, err := autoexpose.ParseConfig([]byte(`
name: weather
expose_tools_over_mcp: true
`))
	if err != nil {
		log.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	r := chi.NewRouter()
	r.Post("/get_weather", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "rollout "+autoexpose.RolloutID(r)+" asked "+r.URL.Path+"\n")
	})
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	r.Post("/verify", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	if _, err := autoexpose.Install(r, cfg); err != nil {
		log.Fatal(err)
	}
	for _, path := range []string{"/ng-rollout/task-3-a1/get_weather", "/get_weather"} {
		req, _ := http.NewRequest(http.MethodPost, path, nil)
		r.ServeHTTP(writer{os.Stdout}, req)
	}
	// Output:
	// rollout task-3-a1 asked /get_weather
	// rollout  asked /get_weather
}

// writer is a ResponseWriter that prints the body.
type writer struct{ io.Writer }

func (writer) Header() http.Header { return http.Header{} }
func (writer) WriteHeader(int)     {}
