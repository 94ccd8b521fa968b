package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/session"
	"github.com/mcpdoor/mcpdoor/token"
)

// testSecret signs the fixtures' sessions and tokens.
const testSecret = "a test secret of at least 32 bytes, for fixtures"

func testKeys(t testing.TB) token.Keys {
	t.Helper()
	k, err := token.NewKeys([]byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

type cityIn struct {
	City string `json:"city" jsonschema:"a city"`
}

type cityOut struct {
	Weather string `json:"weather"`
}

type stepsIn struct {
	N int `json:"n" jsonschema:"how many steps to take"`
}

type stepsOut struct {
	Done int `json:"done"`
}

// fixture is a server with one route per shape a tool route can have, and
// per-session state.
type fixture struct {
	sessions *session.Manager
	mu       sync.Mutex
	state    map[string][]string
}

func (f *fixture) record(r *http.Request, v string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id := session.ID(r)
	f.state[id] = append(f.state[id], v)
}

// history returns the session's record, in order.
func (f *fixture) history(r *http.Request) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string{}, f.state[session.ID(r)]...)
}

// reset empties the session's record.
func (f *fixture) reset(r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.state, session.ID(r))
}

// pngBytes is a valid 2x2 PNG.
func pngBytes() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

// routes registers the fixture's routes on r. The fixture is not safe for
// concurrent use; the parity tests call it sequentially.
func (f *fixture) routes(r chi.Router) {
	r.Use(middleware.Recoverer)
	r.Use(f.sessions.Middleware)
	r.Method(http.MethodPost, "/weather", autoexpose.Handler(func(_ context.Context, r *http.Request, in cityIn) (cityOut, error) {
		switch in.City {
		case "Atlantis":
			return cityOut{}, autoexpose.Error(http.StatusNotFound, "no such city: Atlantis")
		case "Error":
			return cityOut{}, errors.New("database is down")
		}
		f.record(r, in.City)
		return cityOut{Weather: "The weather in " + in.City + " is sunny and 72 F."}, nil
	}, autoexpose.Describe("The weather in a city.")))
	// A long handler that tells an MCP client how far it has got: progress
	// and a log message per step. Over HTTP both are no-ops.
	r.Method(http.MethodPost, "/steps", autoexpose.Handler(func(ctx context.Context, _ *http.Request, in stepsIn) (stepsOut, error) {
		for i := 1; i <= in.N; i++ {
			if err := autoexpose.Progress(ctx, float64(i), float64(in.N), fmt.Sprintf("step %d of %d", i, in.N)); err != nil {
				return stepsOut{}, err
			}
			if err := autoexpose.Log(ctx, "info", map[string]int{"step": i}); err != nil {
				return stepsOut{}, err
			}
			if err := autoexpose.Log(ctx, "debug", "below the level the tests set"); err != nil {
				return stepsOut{}, err
			}
		}
		return stepsOut{Done: in.N}, nil
	}, autoexpose.Describe("Take n steps, reporting progress.")))
	r.Method(http.MethodPost, "/history", autoexpose.Handler(func(_ context.Context, r *http.Request, _ struct{}) (map[string][]string, error) {
		return map[string][]string{"history": f.history(r)}, nil
	}))
	// A plain handler that decodes its body into a map.
	r.Post("/map_body", func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			http.Error(w, "bad body: "+err.Error(), http.StatusBadRequest)
			return
		}
		f.record(r, "map_body")
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"keys": len(m)})
	})
	// A plain handler that echoes the raw bytes it was sent.
	r.Post("/raw_echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(b)
	})
	r.Post("/teapot", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "I'm a teapot", http.StatusTeapot)
	})
	r.Post("/boom", func(w http.ResponseWriter, r *http.Request) {
		panic("kaboom: secret detail")
	})
	r.Post("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "hello, world")
	})
	r.Post("/array", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "[1, 2, 3]\n")
	})
	r.Post("/nocontent", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	r.Post("/problem", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusConflict)
		io.WriteString(w, `{"title":"conflict","detail":"already booked"}`)
	})
	r.Post("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(pngBytes())
	})
	// An image whose handler sets no Content-Type: net/http would sniff it.
	r.Post("/sniffed_image", func(w http.ResponseWriter, r *http.Request) {
		w.Write(pngBytes())
	})
	r.Post("/bad_image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("GIF89a not really"))
	})
	// /seed_session answers what its body asks for, so tests can try every
	// kind of seed response: {"respond": <JSON>, "status": <code>} or
	// {"respond_text": "..."}; {} by default.
	r.Post("/seed_session", func(w http.ResponseWriter, r *http.Request) {
		var seed struct {
			Respond     json.RawMessage `json:"respond"`
			RespondText string          `json:"respond_text"`
			Status      int             `json:"status"`
		}
		json.NewDecoder(r.Body).Decode(&seed)
		f.reset(r)
		if seed.Status == 0 {
			seed.Status = http.StatusOK
		}
		if seed.RespondText != "" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(seed.Status)
			io.WriteString(w, seed.RespondText)
			return
		}
		if seed.Respond == nil {
			seed.Respond = json.RawMessage(`{}`)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(seed.Status)
		w.Write(seed.Respond)
	})
	// /verify echoes the function_call names it saw and the session's
	// history, with reward 1.0 when it saw a call to weather.
	r.Post("/verify", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, "verify: not a JSON object", http.StatusBadRequest)
			return
		}
		var seen []string
		resp, _ := body["response"].(map[string]any)
		out, _ := resp["output"].([]any)
		for _, item := range out {
			if m, _ := item.(map[string]any); m["type"] == "function_call" {
				seen = append(seen, fmt.Sprint(m["name"]))
			}
		}
		body["seen_names"] = seen
		if h := f.history(r); len(h) > 0 {
			body["history"] = h
		}
		body["reward"] = 0.0
		if slices.Contains(seen, "weather") {
			body["reward"] = 1.0
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(body)
	})
}

// fixtureConfig is an enabled config for the fixture.
func fixtureConfig(t testing.TB) autoexpose.Config {
	cfg, err := autoexpose.ParseConfig([]byte(`
name: fixture
expose_tools_over_mcp: true
mcp:
  session_secret: "` + testSecret + `"
`))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.MCP.Rollout.AllowedTools = func(seed []byte) ([]string, error) {
		var b struct {
			AllowedTools []string `json:"allowed_tools"`
			HookError    bool     `json:"hook_error"`
		}
		json.Unmarshal(seed, &b)
		if b.HookError {
			return nil, errors.New("the allow-list service is down")
		}
		return b.AllowedTools, nil
	}
	return cfg
}

// uncheckedConfig is fixtureConfig with mcp.rollout.claims off, for the
// tests that post /verify trajectories of calls no session made, to test
// what /verify does to names and bodies.
func uncheckedConfig(t testing.TB) autoexpose.Config {
	cfg := fixtureConfig(t)
	cfg.MCP.Rollout.Claims = "off"
	return cfg
}

// newLogger logs to w, for tests that read the log.
func newLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, nil))
}

// newFixture builds the fixture router and installs the door with cfg.
func newFixture(t testing.TB, cfg autoexpose.Config) (http.Handler, *autoexpose.Door, *fixture) {
	t.Helper()
	sessions, err := cfg.UseSessions()
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{sessions: sessions, state: make(map[string][]string)}
	r := chi.NewRouter()
	f.routes(r)
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatalf("Install: %v", err)
	}
	return r, door, f
}

// cookieSID returns the session a session cookie names ("name=value", or a
// Set-Cookie line), verified with the fixture's secret; or an error for a
// cookie the fixture's session middleware refuses, and would replace with a
// new session's. (It reads the cookie as the middleware does, without asking
// whether a store holds its session, which no middleware of its own could
// tell.)
func cookieSID(t testing.TB, cookie string) (string, error) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	req.Header.Set("Cookie", cookie)
	if c, err := http.ParseSetCookie(cookie); err == nil {
		req.Header.Set("Cookie", c.Name+"="+c.Value)
	}
	sid, err := sessions.New(testKeys(t), nil).Read(req)
	if err != nil {
		return "", errors.New("not a session cookie of the fixture's secret")
	}
	return sid, nil
}
