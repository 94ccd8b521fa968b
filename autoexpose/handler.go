package autoexpose

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/argcheck"
	"github.com/mcpdoor/mcpdoor/internal/bodies"
	"github.com/mcpdoor/mcpdoor/internal/harvest"
	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
	"github.com/mcpdoor/mcpdoor/internal/typeschema"
)

// Handler adapts a typed function to an http.Handler that is an ordinary
// route on the HTTP door and carries its types for the MCP door:
//
//	r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(getWeather,
//		autoexpose.Describe("Get the weather in a city.")))
//
// Over HTTP it reads the JSON body, validates it against In's schema
// (answering 422 with the offending fields, or 400 for a body that is not
// JSON), decodes it into In, calls fn, and writes Out as JSON with status 200.
// An error from fn is answered with the status and message Error gave it, or
// 500 with a generic body (the error goes to the log: Config.Logger once
// Install has seen the route, slog.Default before). The body is read up to
// mcp.max_body_bytes once Install has seen the route, 4 MiB before.
//
// Install advertises In's schema as the tool's input schema and, when Out is
// an object, Out's schema as its output schema. Field descriptions come from
// `jsonschema:"..."` struct tags. An In that is a slice (a bulk route's
// JSON array) is the tool's one argument "body", since a tool's arguments
// are an object.
//
// Handler panics if In's schema is neither an object's nor an array's, a
// setup mistake.
func Handler[In, Out any](fn func(ctx context.Context, r *http.Request, in In) (Out, error), opts ...HandlerOption) http.Handler {
	in := SchemaFor[In]()
	if in.Type != "object" && in.Type != "array" {
		panic(fmt.Sprintf("mcpdoor: Handler: input type %s has schema type %q; a tool's input must be a JSON object (a struct or a map), or an array (a slice)", reflect.TypeFor[In](), in.Type))
	}
	cs, err := compiledInput(reflect.TypeFor[In](), in)
	if err != nil {
		panic(fmt.Sprintf("mcpdoor: Handler: input type %s: %v", reflect.TypeFor[In](), err))
	}
	h := &typedHandler[In, Out]{fn: fn, info: harvest.TypedInfo{Input: in, Resolved: cs}}
	if out, err := typeschema.Output[Out](); err == nil && out.Type == "object" {
		h.info.Output = out
	}
	for _, o := range opts {
		o.apply(&h.info)
	}
	return h
}

// compiledInputs holds the compiled input schema of each input type: a
// server often makes many handlers of one input type, and compiling a
// schema costs hundreds of microseconds where a lookup costs nanoseconds.
// It holds one entry per type, and a program has few.
var compiledInputs sync.Map // reflect.Type → *argcheck.Schema

// compiledInput returns the compiled schema of the input type t, whose
// schema is s.
func compiledInput(t reflect.Type, s *jsonschema.Schema) (*argcheck.Schema, error) {
	if cs, ok := compiledInputs.Load(t); ok {
		return cs.(*argcheck.Schema), nil
	}
	cs, err := argcheck.Compile(s)
	if err != nil {
		return nil, err
	}
	compiledInputs.Store(t, cs)
	return cs, nil
}

// A HandlerOption sets what a typed handler tells MCP clients about its
// tool: Describe or Annotate.
type HandlerOption struct{ apply func(*harvest.TypedInfo) }

// Describe sets the tool's description.
func Describe(description string) HandlerOption {
	return HandlerOption{func(t *harvest.TypedInfo) { t.Description = description }}
}

// Annotate sets the tool's MCP annotations (readOnlyHint, destructiveHint,
// idempotentHint, openWorldHint, title).
func Annotate(a mcp.ToolAnnotations) HandlerOption {
	return HandlerOption{func(t *harvest.TypedInfo) { t.Annotations = &a }}
}

// typedLimit is the body limit of a typed handler: its door's
// mcp.max_body_bytes, or the default before an Install.
func typedLimit(t *harvest.TypedInfo) int64 {
	if n := t.MaxBody.Load(); n > 0 {
		return n
	}
	return defaultMaxBodyBytes
}

// typedLogger is the logger of a typed handler: its door's, or
// slog.Default() before an Install.
func typedLogger(t *harvest.TypedInfo) *slog.Logger {
	if l := t.Log.Load(); l != nil {
		return l
	}
	return slog.Default()
}

type typedHandler[In, Out any] struct {
	fn   func(context.Context, *http.Request, In) (Out, error)
	info harvest.TypedInfo
}

// TypedInfo is what the handler carries for the harvest.
func (h *typedHandler[In, Out]) TypedInfo() *harvest.TypedInfo { return &h.info }

func (h *typedHandler[In, Out]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := bodies.ReadAll(w, r, typedLimit(&h.info))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeJSONError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit))
			return
		}
		writeJSONError(w, http.StatusBadRequest, "reading request body: "+err.Error())
		return
	}
	// A tool call's arguments were checked against this schema already,
	// by the MCP door.
	if !argcheck.AlreadyChecked(r.Context(), h.info.Resolved, body) {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			if !json.Valid(body) {
				writeJSONError(w, http.StatusBadRequest, "request body is not valid JSON")
				return
			}
			// Valid JSON that does not decode (a number out of range) fails
			// as arguments do on the MCP door.
			writeJSON(w, http.StatusUnprocessableEntity, argcheck.NotJSON(err).Body())
			return
		}
		if ae := h.info.Resolved.Check(v); ae != nil {
			writeJSON(w, http.StatusUnprocessableEntity, ae.Body())
			return
		}
	}
	var in In
	if err := json.Unmarshal(body, &in); err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, (&argcheck.Failure{Detail: err.Error()}).Body())
		return
	}
	out, err := h.fn(r.Context(), r, in)
	if err != nil {
		var he *httpError
		if errors.As(err, &he) {
			writeJSONError(w, he.status, he.message)
			return
		}
		if errors.Is(err, sessions.ErrEnded) {
			// The session ended while the call ran: its next call gets the
			// same answer from the Door.
			writeJSONError(w, http.StatusMisdirectedRequest, (&sessions.Misrouted{SID: sessions.ID(r)}).Error())
			return
		}
		if errors.Is(err, sessions.ErrUnavailable) {
			typedLogger(&h.info).ErrorContext(r.Context(), "mcpdoor: handler error: the session store failed", "path", r.URL.Path, "err", err)
			writeJSONError(w, http.StatusServiceUnavailable, sessions.StoreDownText)
			return
		}
		if errors.Is(err, mcpcall.ErrInputRequired) {
			// Not a failure: the question goes to the client, and the
			// answer written here is dropped.
			writeJSONError(w, http.StatusServiceUnavailable, err.Error())
			return
		}
		typedLogger(&h.info).ErrorContext(r.Context(), "mcpdoor: handler error", "path", r.URL.Path, "err", err)
		writeJSONError(w, http.StatusInternalServerError, "internal server error")
		return
	}
	// What json.Marshal writes, straight from the encoder's buffer: a large
	// result is not copied once more.
	if err := json.NewEncoder(&jsonWriter{w: w}).Encode(out); err != nil {
		typedLogger(&h.info).ErrorContext(r.Context(), "mcpdoor: encoding a handler's result", "path", r.URL.Path, "err", err)
		writeJSONError(w, http.StatusInternalServerError, "internal server error")
	}
}

// jsonWriter writes the output of a json.Encoder, which comes in one
// Write, as a 200 JSON response, without the newline the encoder ends it
// with.
type jsonWriter struct{ w http.ResponseWriter }

func (j *jsonWriter) Write(p []byte) (int, error) {
	writeJSON(j.w, http.StatusOK, bytes.TrimSuffix(p, []byte("\n")))
	return len(p), nil
}

// httpError is an error a typed handler returns to answer with a status
// other than 500 (see Error).
type httpError struct {
	status  int
	message string
}

func (e *httpError) Error() string { return fmt.Sprintf("%d %s", e.status, e.message) }

// ErrorMetaKey is the key of a failed call's error envelope,
// {"error": {...}}, in the result's _meta, where the tool advertises an
// output schema (the package documentation, "Results"): a client checks
// structuredContent against that schema, even in an error, so the envelope
// cannot go there. A client that reads the envelope reads it under this key.
const ErrorMetaKey = toolset.ErrorMetaKey

// Error returns an error that a typed handler (Handler) returns to answer
// with status and a JSON body {"error": message}, instead of a 500; an MCP
// client gets it as an isError result whose message is message.
func Error(status int, message string) error {
	return &httpError{status: status, message: message}
}

func writeJSONError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	writeJSON(w, status, b)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}
