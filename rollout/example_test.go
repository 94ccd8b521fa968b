package rollout_test

import (
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/rollout"
)

// A handler reads the NeMo Gym rollout a request came under with
// rollout.ID; a request without the prefix has none.
func ExampleID() {
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
		io.WriteString(w, "rollout "+rollout.ID(r)+" asked "+r.URL.Path+"\n")
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
