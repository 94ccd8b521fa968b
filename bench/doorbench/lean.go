package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// The lean handler is the least an MCP server must do to serve the echo
// tool statelessly: one JSON-RPC request per POST, answered with one JSON
// body. It speaks enough of both protocol versions for a real client to
// connect (initialize, or server/discover under 2026-07-28) and call the
// tool; it is a yardstick, not a server to copy.

// leanRequest is the part of a JSON-RPC request the lean handler reads.
type leanRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name            string          `json:"name"`
		Arguments       json.RawMessage `json:"arguments"`
		ProtocolVersion string          `json:"protocolVersion"` // initialize's
		Meta            struct {
			ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	} `json:"params"`
}

// leanVersions are the protocol versions the lean handler speaks, newest
// first.
var leanVersions = []string{"2026-07-28", "2025-11-25"}

// leanServerInfo is how the lean handler names itself.
var leanServerInfo = map[string]string{"name": "doorbench", "version": "1"}

// leanMeta is the _meta of a 2026-07-28 result: a server should name
// itself in every result.
var leanMeta = json.RawMessage(`{"io.modelcontextprotocol/serverInfo":{"name":"doorbench","version":"1"}}`)

// leanEchoTool is the echo tool as tools/list shows it.
var leanEchoTool = map[string]any{
	"name":         "echo",
	"description":  "Echo the text back.",
	"inputSchema":  map[string]any{"type": "object", "required": []string{"text"}, "properties": map[string]any{"text": map[string]any{"type": "string"}}},
	"outputSchema": map[string]any{"type": "object", "required": []string{"text"}, "properties": map[string]any{"text": map[string]any{"type": "string"}}},
}

// newLean returns the lean handler.
func newLean() (http.Handler, error) {
	return http.HandlerFunc(serveLean), nil
}

func serveLean(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	var req leanRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody)).Decode(&req); err != nil {
		leanReply(w, nil, nil, &leanError{Code: -32700, Message: "parse error: " + err.Error()})
		return
	}
	if req.ID == nil { // a notification: nothing to answer
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// Under 2026-07-28 every request states its version in _meta, and a
	// result says it is complete and names the server; a list result says
	// how long it may be cached.
	modern := req.Params.Meta.ProtocolVersion >= "2026-07-28"
	switch req.Method {
	case "initialize":
		v := req.Params.ProtocolVersion
		if v >= "2026-07-28" || v == "" {
			v = "2025-11-25"
		}
		leanReply(w, req.ID, map[string]any{
			"protocolVersion": v,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      leanServerInfo,
		}, nil)
	case "server/discover":
		leanReply(w, req.ID, map[string]any{
			"resultType":        "complete",
			"_meta":             leanMeta,
			"ttlMs":             0,
			"cacheScope":        "public",
			"supportedVersions": leanVersions,
			"capabilities":      map[string]any{"tools": map[string]any{}},
		}, nil)
	case "ping":
		leanReply(w, req.ID, map[string]any{}, nil)
	case "tools/list":
		res := map[string]any{"tools": []any{leanEchoTool}}
		if modern {
			res["resultType"], res["_meta"], res["ttlMs"], res["cacheScope"] = "complete", leanMeta, 0, "private"
		}
		leanReply(w, req.ID, res, nil)
	case "tools/call":
		leanCall(w, &req, modern)
	default:
		leanReply(w, req.ID, nil, &leanError{Code: -32601, Message: "method not found: " + req.Method})
	}
}

// leanCall answers tools/call: the echo tool's text as structuredContent,
// and the same JSON as text.
func leanCall(w http.ResponseWriter, req *leanRequest, modern bool) {
	if req.Params.Name != "echo" {
		leanReply(w, req.ID, nil, &leanError{Code: -32602, Message: "unknown tool " + strings.TrimSpace(req.Params.Name) + "; the tool is echo"})
		return
	}
	var in echoIn
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		leanReply(w, req.ID, nil, &leanError{Code: -32602, Message: "invalid arguments: " + err.Error()})
		return
	}
	out, err := json.Marshal(echoOut(in))
	if err != nil {
		leanReply(w, req.ID, nil, &leanError{Code: -32603, Message: err.Error()})
		return
	}
	res := struct {
		ResultType        string            `json:"resultType,omitempty"`
		Meta              json.RawMessage   `json:"_meta,omitempty"`
		Content           []leanTextContent `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
	}{Content: []leanTextContent{{Type: "text", Text: string(out)}}, StructuredContent: out}
	if modern {
		res.ResultType, res.Meta = "complete", leanMeta
	}
	leanReply(w, req.ID, res, nil)
}

type leanTextContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type leanError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// leanReply writes one JSON-RPC response as application/json.
func leanReply(w http.ResponseWriter, id json.RawMessage, result any, rpcErr *leanError) {
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result,omitempty"`
		Error   *leanError      `json:"error,omitempty"`
	}{"2.0", id, result, rpcErr}
	if id == nil {
		resp.ID = json.RawMessage("null")
	}
	body, err := json.Marshal(resp)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}
