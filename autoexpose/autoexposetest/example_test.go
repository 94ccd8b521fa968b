package autoexposetest_test

import (
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/autoexpose/autoexposetest"
)

// newRouter stands for a server's own constructor: its routes, then
// autoexpose.Install.
func newRouter(cfg autoexpose.Config) (http.Handler, *autoexpose.Door, error) {
	answer := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(body))
		}
	}
	r := chi.NewRouter()
	r.Post("/get_weather", answer(`{"weather":"sunny"}`))
	r.With(requireKey).Post("/delete_forecast", answer(`{"deleted":true}`))
	r.Post("/seed_session", answer(`{}`))
	r.Post("/verify", answer(`{"reward":1}`))
	door, err := autoexpose.Install(r, cfg)
	return r, door, err
}

// A test serves the server's real handler in process and checks that its
// two doors answer alike.
func ExampleServer_Parity() {
	var t *testing.T // in a test, the test's own t

	h, door, err := newRouter(autoexpose.Config{Name: "weather", ExposeToolsOverMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := autoexposetest.NewServer(t, h, door) // h, door: your routes, then autoexpose.Install
	ts.Parity(t,
		autoexposetest.Call{Tool: "get_weather", Arguments: `{"city":"Paris"}`},
		autoexposetest.Call{Tool: "get_weather", Arguments: `{"city":""}`},
	)
}

// A test pins what each route became, so that a change to the router's
// middlewares shows in CI: here, that the route behind the key check is
// replayed through it, never called directly.
func ExampleVerdicts() {
	var t *testing.T // in a test, the test's own t

	_, door, err := newRouter(autoexpose.Config{Name: "weather", ExposeToolsOverMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	autoexposetest.Verdicts(t, door, map[string]string{
		"get_weather":        "direct",
		"delete_forecast":    "replay", // behind requireKey
		"POST /seed_session": "reserved",
		"POST /verify":       "reserved",
	})
}

// A test runs a rollout as an RL harness does: seed a session, call the
// tools over MCP with the seed's token, and score the rollout.
func ExampleClient_Seed() {
	var t *testing.T // in a test, the test's own t

	h, door, err := newRouter(autoexpose.Config{Name: "weather", ExposeToolsOverMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := autoexposetest.NewServer(t, h, door)
	c := ts.Client()
	seed := c.Seed(t, `{"allowed_tools":["get_weather"]}`)
	t.Logf("seeded: %d %s", seed.Status, seed.Body) // the "mcp" metadata, with the token

	cs := c.Connect(t, nil) // sends the token
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Oslo"}})
	if err != nil || res.IsError {
		t.Fatalf("get_weather: %v %v", res, err)
	}
	score := c.Verify(t, `{"response":{"output":[]}}`) // in the seed's session
	t.Logf("verify: %d %s", score.Status, score.Body)
}

// A Client's HTTP requests and MCP calls share its session.
func ExampleClient_Connect() {
	var t *testing.T // in a test, the test's own t

	h, door, err := newRouter(autoexpose.Config{Name: "weather", ExposeToolsOverMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	c := autoexposetest.NewServer(t, h, door).Client()
	c.Post(t, "/get_weather", `{"city":"Paris"}`) // the HTTP door
	cs := c.Connect(t, &autoexposetest.ConnectOptions{ProtocolVersion: "2025-11-25"})
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
}
