package autoexpose_test

import (
	"context"
	"log"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// These examples are the README's code, word for word (a test checks it),
// so that the README's snippets compile.

// A server's routes, served over MCP too: the README's "Add it to your
// server".
func Example() {
	cfg, err := autoexpose.LoadConfig("server.yaml") // name: weather, expose_tools_over_mcp: true
	if err != nil {
		log.Fatal(err)
	}
	sessions, err := cfg.UseSessions() // optional: per-session state, shared by both doors
	if err != nil {
		log.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(getWeather)) // or any http.Handler
	door, err := autoexpose.Install(r, cfg)                                   // after the routes, before serving
	if err != nil {
		log.Fatal(err)
	}
	defer door.Close()
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", r))
}

// SendEmail is the input of a catch-all tool.
type SendEmail struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
}

// The tools a catch-all dispatcher (POST /{tool}) serves are declared in
// Config.CatchAll.
func ExampleConfig_catchAll() {
	cfg, err := autoexpose.LoadConfig("server.yaml")
	if err != nil {
		log.Fatal(err)
	}
	r := chi.NewRouter()
	r.Post("/{tool}", func(w http.ResponseWriter, r *http.Request) { /* dispatches by chi.URLParam(r, "tool") */ })
	cfg.CatchAll = map[string]autoexpose.Declaration{
		"send_email": {Description: "Send an email.", Input: autoexpose.SchemaFor[SendEmail]()},
	}
	if _, err := autoexpose.Install(r, cfg); err != nil {
		log.Fatal(err)
	}
}

// A long handler tells an MCP client how far it has got, and logs to it;
// both do nothing for an HTTP caller.
func ExampleLog() {
	r := chi.NewRouter()
	r.Post("/forecast", func(w http.ResponseWriter, r *http.Request) {
		city, days := "Paris", 5
		for day := 1; day <= days; day++ {
			autoexpose.Progress(r.Context(), float64(day), float64(days), "day 2 of 5") // notifications/progress, if the client sent a progress token
			autoexpose.Log(r.Context(), "info", map[string]any{"city": city})           // notifications/message, at the client's log level
		}
		w.Write([]byte(`{}`))
	})
	_ = context.Background
}
