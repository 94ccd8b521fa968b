package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"
)

// A ToolSpec describes one tool of the catch-all route POST /{tool}.
type ToolSpec struct {
	// Name is the tool's name, the {tool} of its route.
	Name string
	// Description says what the tool does, for the agent.
	Description string
	// Input is the JSON schema of the tool's arguments, an object.
	Input *jsonschema.Schema
	// ReadOnly reports that the tool does not change the office.
	ReadOnly bool
}

// An entry is one tool of the table: its spec, and bind, which checks a
// request body against the spec's schema and decodes it into the tool's
// input type, returning the call to run on an office.
type entry struct {
	spec ToolSpec
	bind func(body []byte) (func(*state) (any, error), error)
}

// tool makes the entry of a tool from its function, so that the schema the
// table advertises and the type the dispatcher decodes into are one Go type.
// It panics if In has no JSON schema, a mistake in the table.
func tool[In, Out any](name, description string, readOnly bool, fn func(*state, In) (Out, error)) entry {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("env: tool %s: %v", name, err))
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("env: tool %s: %v", name, err))
	}
	return entry{
		spec: ToolSpec{Name: name, Description: description, Input: schema, ReadOnly: readOnly},
		bind: func(body []byte) (func(*state) (any, error), error) {
			var v any
			if err := json.Unmarshal(body, &v); err != nil {
				return nil, &toolError{http.StatusBadRequest, "body is not JSON: " + err.Error()}
			}
			// Validating first catches what decoding lets through: a
			// required field left out decodes as its zero value.
			if err := resolved.Validate(v); err != nil {
				return nil, invalid("arguments: %v", err)
			}
			var in In
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&in); err != nil {
				return nil, invalid("arguments: %v", err)
			}
			return func(s *state) (any, error) { return fn(s, in) }, nil
		},
	}
}

// table is every tool, in the order Tools lists them.
var table = slices.Concat(emailTools, calendarTools, crmTools, directoryTools, taskTools)

// toolByName is the table by name, for the dispatcher.
var toolByName = func() map[string]entry {
	m := make(map[string]entry, len(table))
	for _, t := range table {
		if _, dup := m[t.spec.Name]; dup {
			panic("env: tool " + t.spec.Name + " registered twice")
		}
		m[t.spec.Name] = t
	}
	return m
}()

// Tools returns the tools that POST /{tool} serves. Each Input is a copy the
// caller may change.
func Tools() []ToolSpec {
	specs := make([]ToolSpec, len(table))
	for i, t := range table {
		specs[i] = t.spec
		// The dispatcher validates against the original, which must not
		// change once resolved.
		specs[i].Input = t.spec.Input.CloneSchemas()
	}
	return specs
}

// Bounds on request bodies: no tool's arguments come near the first, while
// a verify request carries the whole trajectory of a rollout, which may be
// as long as mcpdoor lets through (mcp.rollout.max_verify_bytes, 1 GiB).
const (
	maxArgs       = 1 << 20
	maxVerifyBody = 1 << 30
)

// dispatch serves POST /{tool}: it decodes the body into the tool's input,
// runs the tool on the session's office and writes its answer.
func (e *Env) dispatch(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "tool")
	t, ok := toolByName[name]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("unknown tool %q", name))
		return
	}
	body, err := readBody(w, r, maxArgs)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	call, err := t.bind(body)
	if err != nil {
		writeToolError(w, err)
		return
	}
	var answer []byte
	stored := e.with(r, !t.spec.ReadOnly, func(ro *rollout) {
		var out any
		if out, err = call(ro.state); err == nil {
			answer, err = marshal(out)
		}
	})
	if stored != nil {
		writeError(w, http.StatusInternalServerError, stored.Error())
		return
	}
	if err != nil {
		writeToolError(w, err)
		return
	}
	write(w, http.StatusOK, answer)
}

// readBody reads a request body, an empty one reading as {} so that a tool
// without arguments can be called with none.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		return nil, fmt.Errorf("reading body: %w", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return []byte("{}"), nil
	}
	return body, nil
}

func writeToolError(w http.ResponseWriter, err error) {
	var te *toolError
	if errors.As(err, &te) {
		writeError(w, te.status, te.msg)
		return
	}
	writeError(w, http.StatusInternalServerError, err.Error())
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// writeJSON writes v, which is always encodable: an answer of the
// environment's own types, or a value decoded from JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := marshal(v)
	if err != nil {
		panic(fmt.Sprintf("env: encoding %T: %v", v, err))
	}
	write(w, status, b)
}

// marshal encodes v as JSON without escaping <, > and &: an agent reads the
// answers, and "Q&A" reads better than "Q\u0026A".
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func write(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}
