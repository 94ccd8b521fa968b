package rollout_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/internal/rollout"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/token"
)

// A handler reads the NeMo Gym rollout a request came under with
// rollout.ID; a request without the prefix has none. The server serves
// the Door, which strips the prefix before the router sees the path.
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
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}
	for _, path := range []string{"/ng-rollout/task-3-a1/get_weather", "/get_weather"} {
		req, _ := http.NewRequest(http.MethodPost, path, nil)
		door.ServeHTTP(writer{os.Stdout}, req) // as http.ListenAndServe(addr, door) does
	}
	// Output:
	// rollout task-3-a1 asked /get_weather
	// rollout  asked /get_weather
}

// writer is a ResponseWriter that prints the body.
type writer struct{ io.Writer }

func (writer) Header() http.Header { return http.Header{} }
func (writer) WriteHeader(int)     {}

// A Contract works on its own, without an MCP door: here a gateway in
// front of a tool service admits each call by the session token its
// /seed_session handed out, and runs it in the rollout's session. The
// gateway and the service share the secret and the server name, so that
// either verifies what the other signs.
func ExampleContract() {
	keys, err := token.NewKeys([]byte("the weather service's secret, 32 bytes or more"))
	if err != nil {
		log.Fatal(err)
	}
	mgr := sessions.New(keys, &sessions.Options{NewID: func() string { return "rollout-1" }})
	contract := rollout.New(rollout.Config{
		// This rollout's task needs the weather, and nothing else.
		AllowedTools: func(seedBody []byte) ([]string, error) { return []string{"get_weather"}, nil },
	}, rollout.Params{Server: "weather", Path: "/mcp", Sessions: mgr})

	tools := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s in session %s", r.URL.Path, sessions.ID(r))
	})
	gateway := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// NeMo Gym's prefix goes first, before anything reads the path.
		if unprefixed, ok := rollout.StripPrefix(r); ok {
			r = unprefixed
		}
		p, err := contract.Admit(r.Header, strings.TrimPrefix(r.URL.Path, "/"), rollout.ID(r))
		var refusal *rollout.Refusal
		if errors.As(err, &refusal) {
			http.Error(w, refusal.Text, refusal.Status)
			return
		}
		tools.ServeHTTP(w, r.WithContext(sessions.NewContext(r.Context(), p.SID)))
	})

	// The agent seeds its rollout, and finds its token in the response.
	seed := contract.Seed(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"task":"Paris"}`)
	}))
	rec := httptest.NewRecorder()
	seed.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/seed_session", strings.NewReader(`{}`)))
	var seeded struct {
		MCP rollout.Metadata `json:"mcp"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &seeded); err != nil {
		log.Fatal(err)
	}
	tok := seeded.MCP.Headers[contract.TokenHeader()]

	for _, call := range []struct{ tool, token string }{
		{"get_weather", tok},
		{"set_alarm", tok},
		{"get_weather", ""},
		{"get_weather", "forged"},
	} {
		req := httptest.NewRequest(http.MethodPost, "/"+call.tool, nil)
		if call.token != "" {
			req.Header.Set(contract.TokenHeader(), call.token)
		}
		rec := httptest.NewRecorder()
		gateway.ServeHTTP(rec, req)
		fmt.Printf("%d %s\n", rec.Code, strings.TrimSpace(rec.Body.String()))
	}
	// Output:
	// 200 /get_weather in session rollout-1
	// 403 Tool 'set_alarm' is not allowed for this session.
	// 401 Missing X-NeMo-Gym-Session-Token for Gym MCP tool call.
	// 401 Invalid Gym MCP session token.
}
