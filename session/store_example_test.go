package session_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
)

// A handler keeps its session's state through the session package: it
// loads it, changes it and saves it. Where it lives is the server's
// Config.Store: in memory by default, or in a store every replica shares.
func ExampleLoad() {
	cfg := autoexpose.Config{Name: "weather", ExposeToolsOverMCP: true,
		MCP:    autoexpose.MCPConfig{SessionSecret: []string{"an example secret of at least 32 bytes"}},
		Logger: slog.New(slog.DiscardHandler)}
	sessions, err := cfg.UseSessions()
	if err != nil {
		log.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Post("/get_weather", func(w http.ResponseWriter, r *http.Request) {
		var cities []string
		if _, err := session.Load(r, "cities", &cities); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		cities = append(cities, "Paris")
		if err := session.Save(r, "cities", cities); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, "asked about %v", cities)
	})

	srv := httptest.NewServer(r)
	defer srv.Close()
	var cookie string
	for range 2 {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/get_weather", strings.NewReader(`{}`))
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cookie = strings.Split(resp.Header.Get("Set-Cookie"), ";")[0]
		fmt.Println(string(body))
	}
	// Output:
	// asked about [Paris]
	// asked about [Paris Paris]
}

// A server frees what it keeps for a session when its rollout ends: after
// /verify has answered, or after mcp.session_idle_ttl unused.
func Example_sessionEnd() {
	var cfg autoexpose.Config
	cfg.MCP.SessionIdleTTL = 30 * time.Minute
	cfg.OnSessionEnd = func(ctx context.Context, sid string) {
		log.Printf("rollout of session %s ended", sid) // close its sandbox, say
	}
	fmt.Println(cfg.MCP.SessionIdleTTL)
	// Output: 30m0s
}
