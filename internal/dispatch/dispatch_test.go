package dispatch_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpdoor/mcpdoor/internal/dispatch"
)

var errBoom = errors.New("boom")

// panicky writes a header and part of a body, then panics with v when the
// call's body is `{"panic":true}`, and answers "fine" otherwise.
func panicky(v any) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if string(body) != `{"panic":true}` {
			io.WriteString(w, "fine")
			return
		}
		w.Header().Set("X-Leak", "internal detail")
		io.WriteString(w, "half a respon")
		panic(v)
	}
}

func TestPanic(t *testing.T) {
	dispatchers := []struct {
		name string
		new  func(h http.Handler) dispatch.Dispatcher
	}{
		{"direct", func(h http.Handler) dispatch.Dispatcher { return dispatch.NewDirect(h, "/t", nil, 0) }},
		{"replay", func(h http.Handler) dispatch.Dispatcher {
			r := chi.NewRouter() // no Recoverer: the panic reaches the dispatcher
			r.Method(http.MethodPost, "/t", h)
			return dispatch.NewReplay(r, 0)
		}},
	}
	values := []struct {
		name      string
		v         any
		wantStack bool
	}{
		{"string", "kaboom", true},
		{"error", errBoom, true},
		{"ErrAbortHandler", http.ErrAbortHandler, false},
	}
	for _, d := range dispatchers {
		for _, v := range values {
			t.Run(d.name+"/"+v.name, func(t *testing.T) {
				disp := d.new(panicky(v.v))
				resp := disp.Dispatch(context.Background(), &dispatch.Call{Path: "/t", Body: []byte(`{"panic":true}`)})
				want := http.Header{"Content-Type": {"text/plain; charset=utf-8"}}
				if resp.Status != http.StatusInternalServerError || string(resp.Body) != "Internal Server Error" {
					t.Errorf("Dispatch = %d %q, want 500 \"Internal Server Error\"", resp.Status, resp.Body)
				}
				if diff := cmp.Diff(want, resp.Header); diff != "" {
					t.Errorf("header (-want +got):\n%s", diff)
				}
				if resp.Panic != v.v {
					t.Errorf("Panic = %#v, want %#v", resp.Panic, v.v)
				}
				if v.wantStack && !bytes.Contains(resp.Stack, []byte("panicky")) {
					t.Errorf("Stack does not show the panicking handler:\n%s", resp.Stack)
				}
				if !v.wantStack && resp.Stack != nil {
					t.Errorf("Stack = %q, want nil for http.ErrAbortHandler", resp.Stack)
				}

				resp = disp.Dispatch(context.Background(), &dispatch.Call{Path: "/t", Body: []byte(`{}`)})
				if resp.Status != http.StatusOK || string(resp.Body) != "fine" || resp.Panic != nil {
					t.Errorf("after the panic: %d %q (panic %v), want 200 \"fine\"", resp.Status, resp.Body, resp.Panic)
				}
			})
		}
	}
}

func TestBadPath(t *testing.T) {
	for _, d := range []dispatch.Dispatcher{
		dispatch.NewDirect(http.NotFoundHandler(), "/t", nil, 0),
		dispatch.NewReplay(chi.NewRouter(), 0),
	} {
		resp := d.Dispatch(context.Background(), &dispatch.Call{Path: "/bad%zz"})
		const want = `mcpdoor: building request for /bad%zz: parse "/bad%zz": invalid URL escape "%zz"`
		if resp.Status != http.StatusBadRequest || string(resp.Body) != want {
			t.Errorf("%T: Dispatch = %d %q, want 400 %q", d, resp.Status, resp.Body, want)
		}
	}
}

// TestCallNotModified: whatever the route does to its request, the Call is
// left as it was, so it can be dispatched again or concurrently.
func TestCallNotModified(t *testing.T) {
	rewrite := func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del("Authorization")
		r.Header.Set("X-Added", "1")
		r.Header["X-Forwarded-For"][0] = "changed"
		io.ReadAll(r.Body)
		io.WriteString(w, r.Header.Get("Content-Type"))
	}
	r := chi.NewRouter()
	r.Post("/t", rewrite)
	for _, d := range []dispatch.Dispatcher{
		dispatch.NewDirect(http.HandlerFunc(rewrite), "/t", nil, 0),
		dispatch.NewReplay(r, 0),
	} {
		c := &dispatch.Call{
			Path:   "/t",
			Body:   []byte(`{"a":1}`),
			Header: http.Header{"Authorization": {"Bearer x"}, "X-Forwarded-For": {"198.51.100.1"}},
		}
		for i := range 2 {
			resp := d.Dispatch(context.Background(), c)
			if string(resp.Body) != "application/json" {
				t.Errorf("%T, dispatch %d: body %q, want the defaulted Content-Type", d, i, resp.Body)
			}
		}
		want := &dispatch.Call{
			Path:   "/t",
			Body:   []byte(`{"a":1}`),
			Header: http.Header{"Authorization": {"Bearer x"}, "X-Forwarded-For": {"198.51.100.1"}},
		}
		if diff := cmp.Diff(want, c, cmpopts.IgnoreUnexported(dispatch.Call{})); diff != "" {
			t.Errorf("%T: the call changed (-want +got):\n%s", d, diff)
		}
	}
}

// TestConcurrent: one Direct and one Replay serve 64 goroutines at once, each
// call getting its own answer. Run with -race.
func TestConcurrent(t *testing.T) {
	echo := func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Tool", chi.URLParam(r, "tool"))
		fmt.Fprintf(w, "%s %s", r.Header.Get("Authorization"), body)
	}
	r := chi.NewRouter()
	r.Use(requireBearer)
	r.Post("/{tool}", echo)
	direct := dispatch.NewDirect(http.HandlerFunc(echo), "/{tool}", r, 0)
	rp := dispatch.NewReplay(r, 0)
	// One shared call: neither dispatcher may write to it.
	shared := &dispatch.Call{Path: "/shared", Body: []byte(`"shared"`), Header: http.Header{"Authorization": {"Bearer let-me-in"}}}

	const goroutines, calls = 64, 20
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			for i := range calls {
				tool := fmt.Sprintf("tool_%d", g)
				body := fmt.Sprintf(`{"g":%d,"i":%d}`, g, i)
				for _, d := range []dispatch.Dispatcher{direct, rp} {
					c := &dispatch.Call{Path: "/" + tool, Body: []byte(body), Header: http.Header{"Authorization": {"Bearer let-me-in"}}}
					resp := d.Dispatch(context.Background(), c)
					if want := "Bearer let-me-in " + body; resp.Status != http.StatusOK || string(resp.Body) != want || resp.Header.Get("X-Tool") != tool {
						errs <- fmt.Errorf("%T: %d %q X-Tool %q, want 200 %q X-Tool %q", d, resp.Status, resp.Body, resp.Header.Get("X-Tool"), want, tool)
						return
					}
					resp = d.Dispatch(context.Background(), shared)
					if !strings.HasSuffix(string(resp.Body), `"shared"`) || resp.Header.Get("X-Tool") != "shared" {
						errs <- fmt.Errorf("%T, shared call: %d %q", d, resp.Status, resp.Body)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
