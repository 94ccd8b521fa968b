package autoexpose_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/detector"
)

type WeatherRequest struct {
	City string `json:"city" jsonschema:"the city to get the weather for"`
}

type WeatherReply struct {
	Weather string `json:"weather"`
}

func getWeather(_ context.Context, _ *http.Request, in WeatherRequest) (WeatherReply, error) {
	return WeatherReply{Weather: "The weather in " + in.City + " is sunny and 72 F."}, nil
}

// Install serves the router's tool routes at /mcp. The startup report says
// what became of each POST route.
func ExampleInstall() {
	cfg, err := autoexpose.ParseConfig([]byte(`
name: weather
expose_tools_over_mcp: true
mcp:
  session_secret: "an example secret of at least 32 bytes"
`))
	if err != nil {
		log.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	sessions, err := cfg.UseSessions()
	if err != nil {
		log.Fatal(err)
	}

	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(getWeather,
		autoexpose.Describe("Get the current weather in a city.")))
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })
	r.Post("/verify", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })

	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}
	detector.WriteTable(os.Stdout, door.Report())
	// Output:
	// TOOL         ROUTE               VERDICT   SCHEMA  REASON
	// get_weather  POST /get_weather   direct    typed
	// -            POST /seed_session  reserved  -
	// -            POST /verify        reserved  -
}

// Install refuses a route it cannot serve, saying how to fix it.
func ExampleInstall_refusal() {
	r := chi.NewRouter()
	r.Post("/users/update", func(http.ResponseWriter, *http.Request) {})
	_, err := autoexpose.Install(r, autoexpose.Config{
		Name:               "users",
		ExposeToolsOverMCP: true,
		MCP:                autoexpose.MCPConfig{},
	})
	fmt.Println(err)
	// Output:
	// mcpdoor: POST /users/update: tool name "users/update" does not match ^[A-Za-z0-9_-]+$ (a nested route); fix: set mcp.rest to read routes of any depth (an empty block, rest: {}, will do), where this one would be the tool update_users; or serve the tool at a top-level path such as /users_update; or keep the route off MCP with mcp.exclude: ["users/update"]
}
