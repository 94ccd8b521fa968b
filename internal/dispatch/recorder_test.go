package dispatch_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpdoor/mcpdoor/internal/dispatch"
)

// dispatchTo serves one call to h, direct, with a capture limit.
func dispatchTo(h http.HandlerFunc, limit int64) *dispatch.Response {
	return dispatch.NewDirect(h, "/t", nil, limit).Dispatch(context.Background(), &dispatch.Call{Path: "/t", Body: []byte(`{}`)})
}

func TestRecorder(t *testing.T) {
	for _, tc := range []struct {
		name       string
		handler    http.HandlerFunc
		wantStatus int
		wantHeader http.Header
		wantBody   string
	}{
		{
			name:       "nothing written",
			handler:    func(w http.ResponseWriter, r *http.Request) {},
			wantStatus: http.StatusOK,
			wantHeader: http.Header{},
		},
		{
			name:       "first Write sends 200",
			handler:    func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") },
			wantStatus: http.StatusOK,
			wantHeader: http.Header{},
			wantBody:   "hello",
		},
		{
			name: "WriteHeader twice keeps the first",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusCreated)
				w.WriteHeader(http.StatusInternalServerError)
				io.WriteString(w, "made")
			},
			wantStatus: http.StatusCreated,
			wantHeader: http.Header{},
			wantBody:   "made",
		},
		{
			name: "Write then WriteHeader keeps 200",
			handler: func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, "partial")
				w.WriteHeader(http.StatusBadGateway)
			},
			wantStatus: http.StatusOK,
			wantHeader: http.Header{},
			wantBody:   "partial",
		},
		{
			name: "informational statuses are not the response",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusContinue)
				w.WriteHeader(http.StatusEarlyHints)
				w.WriteHeader(http.StatusAccepted)
			},
			wantStatus: http.StatusAccepted,
			wantHeader: http.Header{},
		},
		{
			name: "informational status then Write",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusEarlyHints)
				io.WriteString(w, "x")
			},
			wantStatus: http.StatusOK,
			wantHeader: http.Header{},
			wantBody:   "x",
		},
		{
			name: "headers of a response without a body",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Location", "/elsewhere")
			},
			wantStatus: http.StatusOK,
			wantHeader: http.Header{"Location": {"/elsewhere"}},
		},
		{
			// As net/http: headers are sent with the status line, so what
			// a handler sets afterwards never reaches an HTTP client.
			name: "headers set after WriteHeader are not sent",
			handler: func(w http.ResponseWriter, r *http.Request) {
				h := w.Header()
				h.Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				h.Set("X-Late", "1")
				h.Set("Content-Type", "text/html")
				w.Header().Add("X-Later", "2")
				io.WriteString(w, "{}")
			},
			wantStatus: http.StatusCreated,
			wantHeader: http.Header{"Content-Type": {"application/json"}},
			wantBody:   "{}",
		},
		{
			// The recorded header is the one at WriteHeader whatever the
			// handler does to its header afterwards: a value changed in
			// place, a header deleted, one emptied, one added back.
			name: "headers changed in place after WriteHeader are not sent",
			handler: func(w http.ResponseWriter, r *http.Request) {
				h := w.Header()
				h.Set("Content-Type", "application/json")
				h.Add("X-Multi", "a")
				h.Add("X-Multi", "b")
				h.Set("X-Gone", "1")
				w.WriteHeader(http.StatusAccepted)
				h["Content-Type"][0] = "text/html"
				h["X-Multi"] = h["X-Multi"][:1]
				h.Del("X-Gone")
				io.WriteString(w, "{}")
			},
			wantStatus: http.StatusAccepted,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "X-Multi": {"a", "b"}, "X-Gone": {"1"}},
			wantBody:   "{}",
		},
		{
			// A handler reads its own header after WriteHeader as it left
			// it, as under net/http.
			name: "a handler reads its headers after WriteHeader",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Early", "1")
				w.WriteHeader(http.StatusOK)
				w.Header().Set("X-Late", "2")
				io.WriteString(w, w.Header().Get("X-Early")+w.Header().Get("X-Late"))
			},
			wantStatus: http.StatusOK,
			wantHeader: http.Header{"X-Early": {"1"}},
			wantBody:   "12",
		},
		{
			name: "a header of more names than the recorder holds inline",
			handler: func(w http.ResponseWriter, r *http.Request) {
				for i := range 12 {
					w.Header().Set(fmt.Sprintf("X-H%d", i), "v")
				}
				w.WriteHeader(http.StatusOK)
				w.Header().Set("X-H0", "late")
			},
			wantStatus: http.StatusOK,
			wantHeader: func() http.Header {
				h := http.Header{}
				for i := range 12 {
					h.Set(fmt.Sprintf("X-H%d", i), "v")
				}
				return h
			}(),
		},
		{
			name: "headers set after the first Write are not sent",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Early", "1")
				io.WriteString(w, "a")
				w.Header().Set("X-Late", "1")
				io.WriteString(w, "b")
			},
			wantStatus: http.StatusOK,
			wantHeader: http.Header{"X-Early": {"1"}},
			wantBody:   "ab",
		},
		{
			name: "http.Flusher",
			handler: func(w http.ResponseWriter, r *http.Request) {
				f, ok := w.(http.Flusher)
				if !ok {
					http.Error(w, "not a Flusher", http.StatusNotImplemented)
					return
				}
				io.WriteString(w, "event: 1\n")
				f.Flush()
				io.WriteString(w, "event: 2\n")
				if err := http.NewResponseController(w).Flush(); err != nil {
					io.WriteString(w, err.Error())
				}
			},
			wantStatus: http.StatusOK,
			wantHeader: http.Header{},
			wantBody:   "event: 1\nevent: 2\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := dispatchTo(tc.handler, 0)
			if resp.Status != tc.wantStatus || string(resp.Body) != tc.wantBody || resp.Truncated {
				t.Errorf("Dispatch = %d %q (truncated %v), want %d %q", resp.Status, resp.Body, resp.Truncated, tc.wantStatus, tc.wantBody)
			}
			if diff := cmp.Diff(tc.wantHeader, resp.Header); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
		})
	}
}

// write is one Write's result.
type write struct {
	n   int
	err error
}

func TestRecorderLimit(t *testing.T) {
	const limit = 10
	for _, tc := range []struct {
		name          string
		writes        []string
		want          []write
		wantBody      string
		wantTruncated bool
	}{
		{"under", []string{"12345"}, []write{{5, nil}}, "12345", false},
		{"exactly", []string{"12345", "67890"}, []write{{5, nil}, {5, nil}}, "1234567890", false},
		{"one over in one write", []string{"12345678901"}, []write{{10, dispatch.ErrResponseTooLarge}}, "1234567890", true},
		{"over across writes", []string{"1234", "5678901234", "5"}, []write{{4, nil}, {6, dispatch.ErrResponseTooLarge}, {0, dispatch.ErrResponseTooLarge}}, "1234567890", true},
		{"full, then more", []string{"1234567890", "x"}, []write{{10, nil}, {0, dispatch.ErrResponseTooLarge}}, "1234567890", true},
		{"empty writes at the limit", []string{"1234567890", ""}, []write{{10, nil}, {0, nil}}, "1234567890", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []write
			resp := dispatchTo(func(w http.ResponseWriter, r *http.Request) {
				for _, s := range tc.writes {
					n, err := io.WriteString(w, s)
					got = append(got, write{n, err})
				}
			}, limit)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("writes returned %v, want %v", got, tc.want)
			}
			if string(resp.Body) != tc.wantBody || resp.Truncated != tc.wantTruncated || resp.Status != http.StatusOK {
				t.Errorf("Dispatch = %d %q (truncated %v), want 200 %q (truncated %v)",
					resp.Status, resp.Body, resp.Truncated, tc.wantBody, tc.wantTruncated)
			}
		})
	}
}

// TestRecorderDefaultLimit: 0 means DefaultMaxResponseBytes.
func TestRecorderDefaultLimit(t *testing.T) {
	var err error
	resp := dispatchTo(func(w http.ResponseWriter, r *http.Request) {
		_, err = w.Write(make([]byte, dispatch.DefaultMaxResponseBytes+1))
	}, 0)
	if !errors.Is(err, dispatch.ErrResponseTooLarge) || len(resp.Body) != dispatch.DefaultMaxResponseBytes || !resp.Truncated {
		t.Errorf("Write error %v, %d bytes kept (truncated %v); want ErrResponseTooLarge, %d, true",
			err, len(resp.Body), resp.Truncated, dispatch.DefaultMaxResponseBytes)
	}
}

// TestRecorderRunaway: a handler that ignores ErrResponseTooLarge and writes
// 100 MiB costs the capture limit in memory, not 100 MiB.
func TestRecorderRunaway(t *testing.T) {
	const limit = 1 << 20
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 32<<10/16)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var refused int
	resp := dispatchTo(func(w http.ResponseWriter, r *http.Request) {
		for range 100 << 20 / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				refused++
			}
		}
	}, limit)
	runtime.ReadMemStats(&after)
	if len(resp.Body) != limit || !resp.Truncated || !bytes.Equal(resp.Body, bytes.Repeat(chunk, limit/len(chunk))) {
		t.Errorf("kept %d bytes (truncated %v), want the first %d", len(resp.Body), resp.Truncated, limit)
	}
	if want := 100<<20/len(chunk) - limit/len(chunk); refused != want {
		t.Errorf("%d writes refused, want %d", refused, want)
	}
	// Growing the body to the limit by doubling allocates about twice the
	// limit; a recorder that kept everything would allocate over 100 MiB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*limit {
		t.Errorf("the dispatch allocated %d bytes, want at most %d", alloc, 3*limit)
	}
}

// TestHeaderAfterWriteHeaderMatchesHTTP: the recorder and a real net/http
// server agree on what a handler that sets headers late sends.
func TestHeaderAfterWriteHeaderMatchesHTTP(t *testing.T) {
	h := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("X-Early", "1")
		w.WriteHeader(http.StatusAccepted)
		w.Header().Set("X-Late", "1")
		w.Header().Del("X-Early")
		fmt.Fprint(w, "body")
	}
	resp := dispatchTo(h, 0)
	srv := newHTTPServer(t, http.HandlerFunc(h))
	res, err := http.Post(srv, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if resp.Status != res.StatusCode || string(resp.Body) != string(body) {
		t.Errorf("recorder %d %q, HTTP %d %q", resp.Status, resp.Body, res.StatusCode, body)
	}
	for _, k := range []string{"Content-Type", "X-Early", "X-Late"} {
		if diff := cmp.Diff(res.Header.Values(k), resp.Header.Values(k)); diff != "" {
			t.Errorf("%s (-HTTP +recorder):\n%s", k, diff)
		}
	}
}

// newHTTPServer serves h over HTTP on the loopback interface and returns its
// URL.
func newHTTPServer(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
