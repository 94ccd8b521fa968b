// Package fastpath is the door's fast path (see [Path]): a single
// tools/call on a stateless endpoint served without the go-sdk's session,
// connection and goroutine, to the byte what the go-sdk writes for it;
// and the decision both HTTP paths share of answering a POST as JSON or
// as an event stream ([JSONAnswers]).
package fastpath

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
)

// An answer to a POST that streams nothing — its first message is the
// JSON-RPC response — goes out as one application/json body, as NeMo Gym
// answers it and as the go-sdk's StreamableHTTPOptions.JSONResponse writes
// it; an answer that streams (a progress or log notification, or a request
// to the client, before the response) stays an SSE stream. The client must
// accept both (the go-sdk refuses a POST that does not).
//
// The door cannot know before a call runs whether its handler will send a
// notification (a handler may call Log on any call, and a stateless session
// sends info and above by default), so it holds the answer's first message
// and decides on it: a response is the whole answer, and is written as
// JSON; anything else starts the stream, sent on as it comes. Nothing
// reaches the client before that decision, and a streamed answer is
// delayed by nothing: its first message is written as soon as it is.
// A batch (a JSON array body) keeps its stream, since its first response
// need not be its last. The fast path decides the same way.

// JSONAnswers serves next, the go-sdk's Streamable HTTP handler, writing
// its answer to a POST that streams nothing as JSON (see above). A write
// of the JSON body that fails, after the go-sdk has returned, is logged to
// log: the go-sdk sees the errors of the writes it makes.
func JSONAnswers(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !Accepts(r.Header.Values("Accept")) {
			next.ServeHTTP(w, r)
			return
		}
		body := &peekBody{ReadCloser: r.Body}
		r.Body = body
		a := &answerWriter{w: w, body: body}
		next.ServeHTTP(a, r)
		if err := a.finish(); err != nil {
			log.Warn("mcpdoor: writing the answer failed", "err", err)
		}
	})
}

// peekBody remembers whether a request body is a batch: whether its first
// byte that is not JSON whitespace is '['.
type peekBody struct {
	io.ReadCloser
	seen, batch bool
}

func (p *peekBody) Read(b []byte) (int, error) {
	n, err := p.ReadCloser.Read(b)
	for i := 0; !p.seen && i < n; i++ {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
		default:
			p.seen, p.batch = true, b[i] == '['
		}
	}
	return n, err
}

// An answerWriter holds the go-sdk's SSE answer until its first message
// tells whether the answer streams.
type answerWriter struct {
	w    http.ResponseWriter
	body *peekBody
	// passing: the answer is decided; what the go-sdk writes goes on as it
	// writes it.
	passing bool
	held    []byte // the first event, until it is decided
	status  int    // a 200 the go-sdk set, held with it
}

// eventPrefix and eventSuffix frame one SSE message event as the go-sdk
// writes it on a stream without an event store (the door's): no id, no
// retry.
const (
	eventPrefix = "event: message\ndata: "
	eventSuffix = "\n\n"
)

func (a *answerWriter) Header() http.Header { return a.w.Header() }

func (a *answerWriter) WriteHeader(status int) {
	if a.passing || status != http.StatusOK {
		a.pass() // holds no event yet: an event is held only after a 200
		a.w.WriteHeader(status)
		return
	}
	a.status = status
}

func (a *answerWriter) Write(p []byte) (int, error) {
	if a.passing {
		return a.w.Write(p)
	}
	if a.held != nil {
		// A second write: the first event was not the whole answer.
		if err := a.pass(); err != nil {
			return 0, err
		}
		return a.w.Write(p)
	}
	if !a.sse() {
		a.pass() // holds nothing to write
		return a.w.Write(p)
	}
	a.held = append([]byte(nil), p...)
	if !a.response() {
		if err := a.pass(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// FlushError flushes what is passed on; it holds a response, whose flush
// would only split the answer. (http.NewResponseController calls it.)
func (a *answerWriter) FlushError() error {
	if !a.passing {
		return nil
	}
	return http.NewResponseController(a.w).Flush()
}

// sse reports whether the go-sdk is answering with an event stream (and
// not an error, or the JSON of a protocol-level refusal).
func (a *answerWriter) sse() bool {
	return a.w.Header().Get("Content-Type") == "text/event-stream" && !a.body.batch
}

// response reports whether the held write is one SSE event carrying a
// JSON-RPC response: a message with an id and no method.
func (a *answerWriter) response() bool {
	data, ok := bytes.CutPrefix(a.held, []byte(eventPrefix))
	if !ok {
		return false
	}
	data, ok = bytes.CutSuffix(data, []byte(eventSuffix))
	if !ok || bytes.IndexByte(data, '\n') >= 0 {
		return false
	}
	var msg struct {
		Method *string         `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	return json.Unmarshal(data, &msg) == nil && msg.Method == nil && len(msg.ID) > 0
}

// pass writes what is held and passes everything on from now on. It
// returns the error of writing the held event, which is the go-sdk's
// write's: the go-sdk flushes after each event it writes, this one too, as
// it is written from within its Write.
func (a *answerWriter) pass() error {
	if a.passing {
		return nil
	}
	a.passing = true
	if a.status != 0 {
		a.w.WriteHeader(a.status)
	}
	if a.held != nil {
		_, err := a.w.Write(a.held)
		return err
	}
	return nil
}

// finish ends the answer once the go-sdk has written all of it: a held
// response goes out as the JSON body, with the headers the go-sdk's JSON
// mode sets. It returns the error of that write.
func (a *answerWriter) finish() error {
	if a.passing {
		return nil
	}
	if a.held == nil {
		return a.pass()
	}
	a.passing = true
	JSONAnswerHeader(a.w.Header())
	_, err := a.w.Write(a.held[len(eventPrefix) : len(a.held)-len(eventSuffix)])
	return err
}

// JSONAnswerHeader sets the headers of an answer that streams nothing, written
// as its JSON body: those the go-sdk's JSON mode sets. The door's answers
// through the go-sdk (finish) and the fast path's (fastStream.answer) both
// take them from here.
func JSONAnswerHeader(h http.Header) {
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("Content-Type", "application/json")
	h.Del("Connection")
}

// Accepts reports whether an Accept header takes both JSON and an event
// stream, read as the go-sdk reads it.
func Accepts(values []string) bool {
	var jsonOK, streamOK bool
	for _, value := range values {
		for rest, more := value, true; more; {
			var token string
			token, rest, more = strings.Cut(rest, ",")
			base, _, _ := strings.Cut(strings.TrimSpace(token), ";")
			switch lower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK && streamOK
}

// lower is strings.ToLower, without its allocation for a string of ASCII
// letters that is already lower case.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}
