package autoexposetest_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/autoexpose/autoexposetest"
)

// newRaw serves the routes routes registers, beside one tool (a plain API,
// so that the Door serves), with the kit.
func newRaw(t *testing.T, routes func(r chi.Router)) *autoexposetest.Server {
	t.Helper()
	r := chi.NewRouter()
	r.Post("/noop", func(http.ResponseWriter, *http.Request) {})
	routes(r)
	door, err := autoexpose.Install(r, autoexpose.Config{Name: "raw", ExposeToolsOverMCP: true, Logger: slog.New(slog.DiscardHandler),
		MCP: autoexpose.MCPConfig{SessionSecret: []string{testSecret}}})
	if err != nil {
		t.Fatal(err)
	}
	return autoexposetest.NewServer(t, r, door)
}

// TestTransportRequest: a handler gets the request a server on a loopback
// listener would give it, and the client the response net/http would
// send, its Content-Type sniffed when the handler sets none.
func TestTransportRequest(t *testing.T) {
	seen := make(chan string, 1)
	ts := newRaw(t, func(r chi.Router) {
		r.Put("/echo", func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			local := r.Context().Value(http.LocalAddrContextKey)
			remote := strings.HasPrefix(r.RemoteAddr, "127.0.0.1:") && r.RemoteAddr != "127.0.0.1:80"
			seen <- fmt.Sprintf("%s %s url=%s host=%s proto=%s local=%v remote-loopback=%v body=%s length=%d type=%s",
				r.Method, r.RequestURI, r.URL, r.Host, r.Proto, local, remote, body, r.ContentLength, r.Header.Get("Content-Type"))
			w.Header().Set("X-Seen", "yes")
			w.WriteHeader(http.StatusAccepted)
			io.WriteString(w, "<html><p>accepted</p></html>")
		})
	})
	req, _ := http.NewRequest(http.MethodPut, ts.URL+"/echo?q=1&r=a%20b", strings.NewReader(`{"a":1}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := ts.Client().HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	const wantSeen = `PUT /echo?q=1&r=a%20b url=/echo?q=1&r=a%20b host=127.0.0.1 proto=HTTP/1.1 local=127.0.0.1:80 remote-loopback=true body={"a":1} length=7 type=application/json`
	if got := <-seen; got != wantSeen {
		t.Errorf("the handler saw\n  %s\nwant\n  %s", got, wantSeen)
	}
	got := fmt.Sprintf("%s %s %s %s %s", resp.Status, resp.Proto, resp.Header.Get("Content-Type"), resp.Header.Get("X-Seen"), body)
	if want := "202 Accepted HTTP/1.1 text/html; charset=utf-8 yes <html><p>accepted</p></html>"; got != want {
		t.Errorf("the client got %q, want %q", got, want)
	}
}

// TestTransportHeaderKeys: a header a client sets under a key that is not
// in canonical form (as a map entry, not with Header.Set) reaches the
// handler as net/http's server would parse it: under the canonical key,
// where Header.Get finds it.
func TestTransportHeaderKeys(t *testing.T) {
	seen := make(chan string, 1)
	ts := newRaw(t, func(r chi.Router) {
		r.Get("/header", func(w http.ResponseWriter, r *http.Request) {
			seen <- fmt.Sprintf("get=%q keys=%v", r.Header.Get("X-NeMo-Gym-Session-Token"), slices.Sorted(maps.Keys(r.Header)))
		})
	})
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/header", nil)
	req.Header["X-NeMo-Gym-Session-Token"] = []string{"tok"}
	resp, err := ts.Client().HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, want := <-seen, `get="tok" keys=[X-Nemo-Gym-Session-Token]`; got != want {
		t.Errorf("the handler saw %s, want %s", got, want)
	}
}

// TestTransportStreams: the client reads what the handler has written and
// flushed while the handler still runs, so a text/event-stream response
// reaches it event by event; and closing the body hangs up: the handler's
// context ends.
func TestTransportStreams(t *testing.T) {
	proceed := make(chan struct{})
	ended := make(chan error, 1)
	ts := newRaw(t, func(r chi.Router) {
		r.Get("/events", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: first\n\n")
			w.(http.Flusher).Flush()
			<-proceed // until the client has read the first event
			io.WriteString(w, "data: second\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			ended <- r.Context().Err()
		})
	})
	resp, err := ts.Client().HTTP.Get(ts.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	events := bufio.NewReader(resp.Body)
	for i, want := range []string{"data: first\n", "\n", "data: second\n", "\n"} {
		line, err := events.ReadString('\n')
		if err != nil || line != want {
			t.Fatalf("line %d: %q, %v; want %q", i, line, err, want)
		}
		if i == 1 {
			close(proceed)
		}
	}
	resp.Body.Close()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the handler's context ended with %v, want context.Canceled", err)
	}
}

// TestTransportFailures: a handler's panic reaches the client as an error,
// as a broken connection would; and the requests still in flight when the
// test ends are ended, and waited for.
func TestTransportFailures(t *testing.T) {
	t.Run("panic", func(t *testing.T) {
		ts := newRaw(t, func(r chi.Router) {
			r.Get("/boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
		})
		_, err := ts.Client().HTTP.Get(ts.URL + "/boom")
		if err == nil || !strings.HasPrefix(err.Error(), `Get "http://127.0.0.1/boom": mcpdoor: autoexposetest: GET /boom: the handler panicked: boom`) {
			t.Errorf("got %v, want the handler's panic", err)
		}
	})

	ended := make(chan error, 1)
	t.Run("left running", func(t *testing.T) {
		ts := newRaw(t, func(r chi.Router) {
			r.Get("/wait", func(w http.ResponseWriter, r *http.Request) {
				w.(http.Flusher).Flush()
				<-r.Context().Done()
				ended <- r.Context().Err()
			})
		})
		if _, err := ts.Client().HTTP.Get(ts.URL + "/wait"); err != nil {
			t.Fatal(err)
		}
		// The body is never closed: the test ends with the request open.
	})
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the handler's context ended with %v, want context.Canceled", err)
		}
	default:
		t.Error("the handler still runs after its test ended")
	}
}
