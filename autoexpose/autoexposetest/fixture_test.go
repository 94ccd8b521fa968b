package autoexposetest_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"runtime"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
)

// GreetIn is the input of greet.
type GreetIn struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

// GreetOut is the output of greet.
type GreetOut struct {
	Greeting string `json:"greeting"`
}

// PackIn is the input of pack.
type PackIn struct {
	Boxes int `json:"boxes" jsonschema:"how many boxes to pack"`
}

// PackOut is the output of pack.
type PackOut struct {
	Packed int `json:"packed"`
}

// pack reports its progress box by box.
func (s *shop) pack(ctx context.Context, _ *http.Request, in PackIn) (PackOut, error) {
	for i := 1; i <= in.Boxes; i++ {
		autoexpose.Progress(ctx, float64(i), float64(in.Boxes), fmt.Sprintf("box %d of %d", i, in.Boxes))
	}
	return PackOut{Packed: in.Boxes}, nil
}

// langKey is where the site's language middleware puts the language.
type langKey struct{}

// french is a site-wide middleware that a handler depends on: it sets the
// language greet answers in. A direct call skips it.
func french(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), langKey{}, "fr")))
	})
}

// requireKey refuses a request without the API key. A direct call skips it.
func requireKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "" {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":"an API key is required"}`)
	})
}

// shop is the fixture: a typed tool behind the language middleware, a plain
// tool behind the key check, a per-session counter, a route that writes
// JSON with no Content-Type, and the rollout contract's two routes; and pack, which reports its progress.
type shop struct {
	mu     sync.Mutex
	counts map[string]int // session id → count
}

func (s *shop) greet(ctx context.Context, _ *http.Request, in GreetIn) (GreetOut, error) {
	if in.Name == "" {
		return GreetOut{}, autoexpose.Error(http.StatusBadRequest, "name must not be empty")
	}
	if ctx.Value(langKey{}) == "fr" {
		return GreetOut{Greeting: "bonjour, " + in.Name}, nil
	}
	return GreetOut{Greeting: "hello, " + in.Name}, nil
}

func (s *shop) count(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.counts[session.ID(r)]++
	n := s.counts[session.ID(r)]
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"count":%d}`, n)
}

// restock answers 200 to anything, so a schema that asks for more than it
// does refuses what the route accepts.
func (s *shop) restock(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"restocked":true}`)
}

func (s *shop) seed(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	delete(s.counts, session.ID(r))
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"ready":true}`)
}

func (s *shop) verify(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n := s.counts[session.ID(r)]
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"reward":%d}`, min(n, 1))
}

// testSecret signs the fixture's sessions and tokens.
const testSecret = "a test secret of at least 32 bytes, for the kit"

// newShop builds the fixture's router from a config's YAML (the name, the
// opt-in and the secret are added) and installs its Door.
func newShop(t testing.TB, yaml string) (http.Handler, *autoexpose.Door) {
	t.Helper()
	cfg, err := autoexpose.ParseConfig([]byte("name: shop\nexpose_tools_over_mcp: true\nmcp:\n  session_secret: \"" + testSecret + "\"\n" + yaml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.Declared = map[string]autoexpose.Declaration{
		"restock": {Description: "Restock an item.", Input: autoexpose.SchemaFor[struct {
			Item string `json:"item"`
		}]()},
	}
	sessions, err := cfg.UseSessions()
	if err != nil {
		t.Fatal(err)
	}
	s := &shop{counts: make(map[string]int)}
	r := chi.NewRouter()
	r.Use(sessions.Middleware)
	r.With(french).Method(http.MethodPost, "/greet", autoexpose.Handler(s.greet, autoexpose.Describe("Greet someone.")))
	r.With(requireKey).Post("/stock", s.restock)
	r.Post("/count", s.count)
	r.Method(http.MethodPost, "/pack", autoexpose.Handler(s.pack))
	r.Post("/restock", s.restock)
	r.Post("/note", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"noted":true}`) // no Content-Type: net/http sniffs text/plain
	})
	r.Post("/seed_session", s.seed)
	r.Post("/verify", s.verify)
	door, err := autoexpose.Install(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r, door
}

// recorder is a testing.TB that records what a check reports instead of
// failing the test, so a test can assert what the kit reports. Fatal
// failures still fail the test.
type recorder struct {
	testing.TB
	errors []string
	logs   []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Error(args ...any) { r.errors = append(r.errors, fmt.Sprint(args...)) }

func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func (r *recorder) Helper() {}

// middlewareName is how the startup report names a middleware.
func middlewareName(f func(http.Handler) http.Handler) string {
	return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
}
