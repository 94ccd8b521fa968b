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
	"sync"
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

// Calls of one session that change one value at the same time — parallel
// tool calls of a rollout, on one replica or on several sharing a Redis —
// change it with Update, and none of the changes is lost.
func ExampleUpdate() {
	cfg := autoexpose.Config{Name: "notes", ExposeToolsOverMCP: true,
		MCP:    autoexpose.MCPConfig{SessionSecret: []string{"an example secret of at least 32 bytes"}},
		Logger: slog.New(slog.DiscardHandler)}
	sessions, err := cfg.UseSessions()
	if err != nil {
		log.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Post("/add_note", func(w http.ResponseWriter, r *http.Request) {
		note := "a note"
		err := session.Update(r, "notes", func(notes *[]string) error {
			*notes = append(*notes, note)
			return nil
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		var notes []string
		session.Load(r, "notes", &notes)
		fmt.Fprint(w, len(notes))
	})

	srv := httptest.NewServer(r)
	defer srv.Close()
	post := func(cookie string) (string, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/add_note", nil)
		req.Header.Set("Cookie", cookie)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body), strings.Split(resp.Header.Get("Set-Cookie"), ";")[0]
	}
	_, cookie := post("")
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { post(cookie) })
	}
	wg.Wait()
	notes, _ := post(cookie)
	fmt.Println(notes, "notes")
	// Output: 12 notes
}

// A handler ends its session with End: what the session kept is gone,
// and the client's next request runs in a new session (on a rollout
// server it is refused, 421, as every request of an ended rollout is).
func ExampleEnd() {
	cfg := autoexpose.Config{Name: "shop", ExposeToolsOverMCP: true,
		MCP:    autoexpose.MCPConfig{SessionSecret: []string{"an example secret of at least 32 bytes"}},
		Logger: slog.New(slog.DiscardHandler)}
	sessions, err := cfg.UseSessions()
	if err != nil {
		log.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.Post("/whoami", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, session.ID(r)) })
	r.Post("/logout", func(w http.ResponseWriter, r *http.Request) {
		if err := session.End(r); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer door.Close()

	srv := httptest.NewServer(door)
	defer srv.Close()
	post := func(path, cookie string) (string, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, nil)
		req.Header.Set("Cookie", cookie)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body), strings.Split(resp.Header.Get("Set-Cookie"), ";")[0]
	}
	before, cookie := post("/whoami", "")
	post("/logout", cookie)
	after, _ := post("/whoami", cookie)
	fmt.Println("a new session after End:", after != before && after != "")
	// Output: a new session after End: true
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
