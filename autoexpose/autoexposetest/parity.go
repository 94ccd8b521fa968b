package autoexposetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// A Call is one tool call that [Server.Parity] makes through both doors.
type Call struct {
	// Tool is the tool's name.
	Tool string
	// Arguments is a JSON object: the call's arguments over MCP, and the
	// request body of POST /<tool> over HTTP (compacted, so that both doors
	// get the same bytes). "" sends {}.
	Arguments string
}

// Parity makes calls, in order, through the HTTP door in one new session
// (POST /<tool>) and through the MCP door in another (tools/call, with the
// go-sdk client), and reports with t.Errorf each call whose two answers
// differ. When the server follows the rollout contract, both sessions are
// seeded alike first: s.Seed is posted to /seed_session, and the MCP
// session sends the token it gets.
//
// The answers are compared by the Door's own mapping of a route's response
// to a tool result ([autoexpose.Door.Result]; docs/results.md):
// the HTTP answer is mapped as the Door would map it, and the result must be
// the MCP door's, field for field: isError and the status, the content (the
// error text "HTTP <status> from POST /<tool>: <body>", the body as text),
// the structuredContent, and the error envelope. Arguments the MCP door
// refuses itself (code invalid_arguments, against the tool's input schema)
// match an HTTP answer of 422 Unprocessable Entity, whatever its body. A
// report shows both answers, then each JSON path where they differ: "-"
// what the HTTP answer maps to, "+" what the MCP door answered.
//
// Each call runs once on each door, so an answer must not depend on state
// that sessions share (a global counter, the time): such a tool needs calls
// whose answer stays the same when repeated, or a test of its own.
//
// Parity needs the calls: it does not make up arguments, which a schema
// alone cannot say are meaningful. The tools that no call names are logged.
func (s *Server) Parity(t testing.TB, calls ...Call) {
	t.Helper()
	var names []string // the tools the door serves, by name
	for _, row := range s.door.Report() {
		if row.Tool != "" && row.Verdict != "excluded" {
			names = append(names, row.Tool)
		}
	}
	switch {
	case len(calls) == 0 && len(names) == 0:
		t.Errorf("autoexposetest: Parity needs calls, and the door serves no tool")
		return
	case len(calls) == 0:
		t.Errorf("autoexposetest: Parity needs calls: name each tool with arguments it accepts, e.g. autoexposetest.Call{Tool: %q, Arguments: `{...}`}; the tools are %s",
			names[0], strings.Join(names, ", "))
		return
	}
	web, agent := s.Client(), s.Client()
	if s.tokenHeader != "" {
		web.Seed(t, s.Seed)
		agent.Seed(t, s.Seed)
	}
	cs := agent.Connect(t, nil)
	defer cs.Close()
	called := make(map[string]bool)
	for i, c := range calls {
		called[c.Tool] = true
		if err := s.compare(cs, web, c); err != "" {
			args := c.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			t.Errorf("autoexposetest: parity: calls[%d] %s %s: %s", i, c.Tool, args, err)
		}
	}
	var unchecked []string
	for _, n := range names {
		if !called[n] {
			unchecked = append(unchecked, n)
		}
	}
	if len(unchecked) > 0 {
		t.Logf("autoexposetest: parity: no call of %s", strings.Join(unchecked, ", "))
	}
}

// compare makes call c through both doors and says how their answers
// differ, or "".
func (s *Server) compare(cs *mcp.ClientSession, web *Client, c Call) string {
	args := []byte(c.Arguments)
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, args); err != nil {
		return fmt.Sprintf("the arguments are not JSON: %v", err)
	}
	args = compact.Bytes()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	hr, err := web.post(context.WithValue(ctx, rawKey{}, true), "/"+c.Tool, string(args))
	if err != nil {
		return "the HTTP door gave no answer: " + err.Error()
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: json.RawMessage(args)})
	if err != nil {
		return fmt.Sprintf("the MCP door gave no result: %v\n  HTTP door: %s", err, describeHTTP(hr))
	}
	got := normalize(res)
	if errorCode(got) == "invalid_arguments" {
		if hr.Status == http.StatusUnprocessableEntity {
			return ""
		}
		return fmt.Sprintf("the MCP door refused the arguments before calling the route (code invalid_arguments), but the HTTP door did not answer 422\n  HTTP door: %s\n  MCP door:  %s",
			describeHTTP(hr), describeMCP(res))
	}
	mapped, ok := s.door.Result(c.Tool, hr.Status, hr.Header, hr.Body)
	if !ok {
		return fmt.Sprintf("the door serves no tool %s", c.Tool)
	}
	want := normalize(mapped)
	lines := diffJSON("", want, got)
	if len(lines) == 0 {
		return ""
	}
	return fmt.Sprintf("the doors answer differently\n  HTTP door: %s\n  MCP door:  %s\n  (- what the HTTP answer maps to, + what the MCP door answered)\n  %s",
		describeHTTP(hr), describeMCP(res), strings.Join(lines, "\n  "))
}

// resultFields returns what a client sees of a tool result, each field as
// the JSON it is sent as: isError (always), content and structuredContent
// (when set) and, from _meta, the Door's error envelope alone.
func resultFields(res *mcp.CallToolResult) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{"isError": json.RawMessage(strconv.FormatBool(res != nil && res.IsError))}
	for _, k := range []string{"content", "structuredContent"} {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	var meta map[string]json.RawMessage
	json.Unmarshal(m["_meta"], &meta)
	if env, ok := meta[autoexpose.ErrorMetaKey]; ok {
		out["_meta"] = json.RawMessage(`{"` + autoexpose.ErrorMetaKey + `":` + string(env) + `}`)
	}
	return out, nil
}

// normalize returns resultFields as JSON values. Numbers are float64 on
// both sides, as a client decodes them.
func normalize(res *mcp.CallToolResult) map[string]any {
	fields, err := resultFields(res)
	if err != nil {
		return map[string]any{"marshal error": err.Error()}
	}
	out := make(map[string]any, len(fields))
	for k, raw := range fields {
		var v any
		json.Unmarshal(raw, &v)
		out[k] = v
	}
	return out
}

// errorCode returns the code of a normalized isError result's envelope:
// in _meta, or else its structuredContent; "" for any other result.
func errorCode(m map[string]any) string {
	if m["isError"] != true {
		return ""
	}
	env := m["structuredContent"]
	if meta, ok := m["_meta"].(map[string]any); ok {
		env = meta[autoexpose.ErrorMetaKey]
	}
	e, _ := env.(map[string]any)
	inner, _ := e["error"].(map[string]any)
	code, _ := inner["code"].(string)
	return code
}

// describeHTTP sums up an HTTP answer on one line: status, Content-Type,
// body (cut after 500 bytes).
func describeHTTP(r *Response) string {
	body := string(r.Body)
	if len(body) > 500 {
		body = fmt.Sprintf("%s... (%d bytes)", body[:500], len(r.Body))
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		ct = "no Content-Type"
	}
	return fmt.Sprintf("%d (%s) %s", r.Status, ct, strings.TrimRight(body, "\r\n"))
}

// describeMCP writes a tool result's resultFields on one line, as JSON.
func describeMCP(res *mcp.CallToolResult) string {
	m, err := resultFields(res)
	if err != nil {
		return fmt.Sprintf("%+v", res)
	}
	var out strings.Builder
	out.WriteByte('{')
	for _, k := range resultKeys {
		if v, ok := m[k]; ok {
			if out.Len() > 1 {
				out.WriteByte(',')
			}
			out.WriteString(strconv.Quote(k) + ":" + string(v))
		}
	}
	out.WriteByte('}')
	return out.String()
}

// resultKeys are the keys of a normalized result, in the order they are
// shown.
var resultKeys = []string{"isError", "content", "structuredContent", "_meta"}

// keyOrder sorts the keys of a JSON object for a diff: a result's in
// resultKeys order, any other's alphabetically.
func keyOrder(path string, keys []string) {
	if path != "" {
		slices.Sort(keys)
		return
	}
	slices.SortFunc(keys, func(a, b string) int { return slices.Index(resultKeys, a) - slices.Index(resultKeys, b) })
}
