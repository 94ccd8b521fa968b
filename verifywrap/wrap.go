package verifywrap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/bodies"
	"github.com/mcpdoor/mcpdoor/internal/exposed"
)

// DefaultMaxBodyBytes is the request body limit Wrap applies unless
// Options.MaxBodyBytes says otherwise: 1 GiB, room for the trajectory of
// any rollout NeMo Gym takes (it sets no limit itself; a long-context run
// that records its token ids passes 64 MiB), since Wrap holds the body once
// and hands the handler the normalized copy as a stream.
const DefaultMaxBodyBytes = 1 << 30

// Options configures Wrap. A nil *Options means defaults.
type Options struct {
	// MaxBodyBytes caps the request body read; 0 means 1 GiB
	// (DefaultMaxBodyBytes), and so does a negative value. A longer body is
	// answered with 413 Request Entity Too Large and never reaches the
	// wrapped handler.
	MaxBodyBytes int64

	// LimitName, when set, names the setting behind MaxBodyBytes in the
	// 413's text, so that whoever reads it knows what to raise: "request
	// body exceeds the 1073741824-byte limit (mcp.rollout.max_verify_bytes)".
	LimitName string

	// Logf, when non-nil, receives one line per request whose body could not
	// be rewritten (never the body itself): a request body that is too long,
	// unreadable or not valid JSON, or a response body that is not valid JSON
	// although names were changed on the way in.
	Logf func(format string, args ...any)
}

// Wrap returns a handler that normalizes the function_call names in a
// /verify request for server, calls next with the normalized copy, and
// restores the emitted names in next's JSON response. An empty server strips
// any server's namespace; see rewriteRequest and Normalize for the rules.
//
// The request body is read in full first, into memory that grows with the
// bytes received, never more than twice them (a body over the limit that
// declares its length is refused before any of it is read). next gets a
// request whose Body reads the normalized copy, as a stream from that
// buffer, and whose ContentLength (and Content-Length header, if any)
// matches it; a body that needs no change, non-JSON included, reaches next
// byte for byte and next writes straight to the client. Wrap's memory is
// thus about the body's size: reading it allocates 1.5 times it for a body
// that declares its length, twice for one that does not (see
// docs/limits.md).
//
// When a name changed, next's response is held back until next returns, then
// sent with the first status next wrote (200 if none), the headers next set,
// and its body with the emitted names restored whatever the status, as
// restoreResponse does, written out from the held body. Flush is then a
// no-op; informational 1xx statuses are dropped; a Content-Length header is
// corrected when the body's length changes.
func Wrap(next http.Handler, server string, opts *Options) http.Handler {
	w := &wrapper{next: next, server: server, limit: DefaultMaxBodyBytes, logf: func(string, ...any) {}}
	var limitName string
	if opts != nil {
		if opts.MaxBodyBytes > 0 {
			w.limit = opts.MaxBodyBytes
		}
		if opts.Logf != nil {
			w.logf = opts.Logf
		}
		if opts.LimitName != "" {
			limitName = " (" + opts.LimitName + ")"
		}
	}
	w.tooLarge = fmt.Sprintf("request body exceeds the %d-byte limit%s", w.limit, limitName)
	return w
}

// A wrapper is the handler Wrap returns.
type wrapper struct {
	next     http.Handler
	server   string
	limit    int64
	logf     func(format string, args ...any)
	tooLarge string // the 413's text
}

// ServeHTTP reads the body, plans its rewrite, and serves next the
// rewritten body: its answer as next wrote it when no name changed, else
// held and restored (see serveRestored).
func (wr *wrapper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, release, ok := wr.readBody(w, r)
	defer release()
	if !ok {
		return
	}
	rw, err := plan(body, wr.server, exposed.From(r.Context()))
	if err != nil {
		wr.fail(r, err)
	}
	if rw.refuse != nil {
		wr.fail(r, rw.refuse)
		http.Error(w, rw.refuse.Error(), http.StatusUnprocessableEntity)
		return
	}
	// The handler reads the normalized body as a stream from the one
	// read, never a copy of it.
	in := newSpliced(body, rw.edits)
	r = withBody(r, in, in.Len())
	if len(rw.edits) == 0 && len(rw.receipts) == 0 {
		wr.next.ServeHTTP(w, r)
		return
	}
	wr.serveRestored(w, r, rw)
}

// fail logs err for r. The line names the request; the error's own
// "mcpdoor: " goes, as Logf's writer adds its own prefix.
func (wr *wrapper) fail(r *http.Request, err error) {
	wr.logf("%s %s: %s", r.Method, r.URL.EscapedPath(), strings.TrimPrefix(err.Error(), "mcpdoor: "))
}

// readBody reads r's body whole, within the limit and, under a door, the
// door's budget and deadline. It answers a body it cannot read (413, the
// door's refusal, 400) and then reports false. release frees the body.
func (wr *wrapper) readBody(w http.ResponseWriter, r *http.Request) (body []byte, release func(), ok bool) {
	if r.ContentLength > wr.limit {
		wr.fail(r, fmt.Errorf("request body over %d bytes", wr.limit))
		http.Error(w, wr.tooLarge, http.StatusRequestEntityTooLarge)
		return nil, func() {}, false
	}
	policy := bodies.PolicyFrom(r.Context()) // the door's budget and deadline, under a door
	body, release, err := bodies.Read(w, r, wr.limit, policy)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		wr.fail(r, fmt.Errorf("request body over %d bytes", wr.limit))
		http.Error(w, wr.tooLarge, http.StatusRequestEntityTooLarge)
		return nil, release, false
	case bodies.Refuse(w, err, policy):
		wr.fail(r, err)
		return nil, release, false
	case err != nil:
		wr.fail(r, fmt.Errorf("reading request body: %w", err))
		http.Error(w, "cannot read request body", http.StatusBadRequest)
		return nil, release, false
	}
	return body, release, true
}

// serveRestored serves next with its answer held, then writes it with the
// emitted names restored and the receipts added.
func (wr *wrapper) serveRestored(w http.ResponseWriter, r *http.Request, rw rewrite) {
	rec := &recorder{w: w}
	wr.next.ServeHTTP(rec, r)
	held := rec.body.Bytes()
	out := newSpliced(held, nil)
	// An empty body (nothing written, 204, HEAD) has no names to restore
	// and is not worth a log line.
	if len(held) > 0 {
		if back, err := restoreEdits(held, rw.emitted); err != nil {
			wr.fail(r, err)
		} else {
			out = newSpliced(held, withReceipts(held, back, rw.receipts))
		}
	}
	if h := w.Header(); out.Len() != len(held) && h.Get("Content-Length") != "" {
		h.Set("Content-Length", strconv.Itoa(out.Len()))
	}
	w.WriteHeader(rec.statusOrOK())
	out.WriteTo(w) // an error means the client is gone: nothing left to do
}

// withBody returns a copy of r whose body reads body, n bytes, with its
// lengths to match.
func withBody(r *http.Request, body io.Reader, n int) *http.Request {
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(body)
	r.ContentLength = int64(n)
	r.TransferEncoding = nil
	if r.Header.Get("Content-Length") != "" {
		r.Header.Set("Content-Length", strconv.Itoa(n))
	}
	return r
}

// recorder holds a response back so its body can be rewritten before the
// client sees any of it. Headers go straight into the real writer's map, so
// whatever the handler sets (Set-Cookie, Content-Type, ...) reaches the
// client.
type recorder struct {
	w      http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (rec *recorder) Header() http.Header { return rec.w.Header() }

// WriteHeader records the first final status, the one net/http would send.
// Informational 1xx statuses are dropped: they would have to go out before
// the held-back response, and a client can do without them.
func (rec *recorder) WriteHeader(code int) {
	if rec.status == 0 && (code < 100 || code > 199 || code == http.StatusSwitchingProtocols) {
		rec.status = code
	}
}

func (rec *recorder) Write(p []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return rec.body.Write(p)
}

// Flush does nothing: the response is sent whole once the handler returns.
// It lets handlers that flush run unchanged behind Wrap.
func (rec *recorder) Flush() {}

func (rec *recorder) statusOrOK() int {
	if rec.status == 0 {
		return http.StatusOK
	}
	return rec.status
}
