package autoexpose

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/argcheck"
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
// An error from fn is answered with the status an *HTTPError carries, or 500
// with a generic body (the error goes to the log).
//
// Install advertises In's schema as the tool's input schema and, when Out is
// an object, Out's schema as its output schema. Field descriptions come from
// `jsonschema:"..."` struct tags.
//
// Handler panics if In's schema is not an object schema, a setup mistake.
func Handler[In, Out any](fn func(ctx context.Context, r *http.Request, in In) (Out, error), opts ...HandlerOption) http.Handler {
	in := SchemaFor[In]()
	if in.Type != "object" {
		panic(fmt.Sprintf("autoexpose: Handler: input type %s has schema type %q; a tool's input must be a JSON object (a struct or a map)", reflect.TypeFor[In](), in.Type))
	}
	cs, err := compiledInput(reflect.TypeFor[In](), in)
	if err != nil {
		panic(fmt.Sprintf("autoexpose: Handler: input type %s: %v", reflect.TypeFor[In](), err))
	}
	h := &typedHandler[In, Out]{fn: fn, info: typedInfo{input: in, resolved: cs}}
	if out, err := typeschema.Output[Out](); err == nil && out.Type == "object" {
		h.info.output = out
	}
	for _, o := range opts {
		o(&h.info)
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

// A HandlerOption sets what a typed handler tells MCP clients about its tool.
type HandlerOption func(*typedInfo)

// Describe sets the tool's description.
func Describe(description string) HandlerOption {
	return func(t *typedInfo) { t.description = description }
}

// Annotate sets the tool's MCP annotations (readOnlyHint, destructiveHint,
// idempotentHint, openWorldHint, title).
func Annotate(a mcp.ToolAnnotations) HandlerOption {
	return func(t *typedInfo) { t.annotations = &a }
}

// typedInfo is what a typed handler carries for the detector's harvest.
type typedInfo struct {
	description string
	annotations *mcp.ToolAnnotations
	input       *jsonschema.Schema
	resolved    *argcheck.Schema
	output      *jsonschema.Schema
}

// typedTool is implemented by handlers made with Handler.
type typedTool interface {
	typedInfo() *typedInfo
}

type typedHandler[In, Out any] struct {
	fn   func(context.Context, *http.Request, In) (Out, error)
	info typedInfo
}

func (h *typedHandler[In, Out]) typedInfo() *typedInfo { return &h.info }

func (h *typedHandler[In, Out]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, DefaultMaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeJSONError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit))
			return
		}
		writeJSONError(w, http.StatusBadRequest, "reading request body: "+err.Error())
		return
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		if !json.Valid(body) {
			writeJSONError(w, http.StatusBadRequest, "request body is not valid JSON")
			return
		}
		// Valid JSON that does not decode (a number out of range) fails as
		// arguments do on the MCP door.
		writeJSON(w, http.StatusUnprocessableEntity, notJSON(err).body())
		return
	}
	if ae := checkValue(h.info.resolved, v); ae != nil {
		writeJSON(w, http.StatusUnprocessableEntity, ae.body())
		return
	}
	var in In
	if err := json.Unmarshal(body, &in); err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, (&ArgumentError{Detail: err.Error()}).body())
		return
	}
	out, err := h.fn(r.Context(), r, in)
	if err != nil {
		var he *HTTPError
		if errors.As(err, &he) {
			writeJSONError(w, he.Status, he.Message)
			return
		}
		slog.ErrorContext(r.Context(), "mcpdoor: handler error", "path", r.URL.Path, "err", err)
		writeJSONError(w, http.StatusInternalServerError, "internal server error")
		return
	}
	b, err := json.Marshal(out)
	if err != nil {
		slog.ErrorContext(r.Context(), "mcpdoor: encoding a handler's result", "path", r.URL.Path, "err", err)
		writeJSONError(w, http.StatusInternalServerError, "internal server error")
		return
	}
	writeJSON(w, http.StatusOK, b)
}

// HTTPError is an error a typed handler returns to answer with a status
// other than 500; its Message is the client-facing text.
type HTTPError struct {
	Status  int
	Message string
}

func (e *HTTPError) Error() string { return fmt.Sprintf("%d %s", e.Status, e.Message) }

// Error returns an *HTTPError with the given status and message.
func Error(status int, message string) error {
	return &HTTPError{Status: status, Message: message}
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
