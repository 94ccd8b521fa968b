package verifywrap

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidJSON is wrapped by the errors rewriteRequest and restoreResponse
// return for a body that is not valid JSON. The body comes back unchanged.
var ErrInvalidJSON = errors.New("invalid JSON")

// emittedNames records the names a model emitted, per call_id, in order.
//
// Each name is kept as the JSON string literal the model wrote, quotes and
// escapes included (`"mcp__weather__get_weather"`), so that restoreResponse
// puts back the very bytes the model emitted. Once one function_call item with
// a call_id is renamed, every function_call item with that call_id is
// recorded, renamed or not, so that duplicates line up by position. Items
// without a string call_id are recorded under "".
type emittedNames map[string][]string

// rewriteRequest returns body with the function_call names normalized for
// server, and the emitted names it replaced, keyed by call_id in order.
// changed reports whether any name changed; when false, out is body itself.
//
// Only the name of the items of response.output whose type is
// "function_call" can change: an item whose call_id the top-level
// mcp_tool_call_provenance map covers takes that entry's tool_name when the
// entry's server_name is server (or server is empty) and keeps its name when
// the entry names another server; any other item's name goes through
// Normalize. A provenance entry that is not an object with non-empty string
// server_name and tool_name is ignored. Every byte outside the changed names
// is kept. As in encoding/json, the last of duplicate keys counts.
//
// A body that is not valid JSON is returned unchanged with an error wrapping
// ErrInvalidJSON. Valid JSON without names to change, including JSON that is
// not an object, is returned unchanged with a nil error.
func rewriteRequest(body []byte, server string) (out []byte, emitted emittedNames, changed bool, err error) {
	edits, emitted, err := rewriteEdits(body, server, nil)
	if err != nil || len(edits) == 0 {
		return body, nil, false, err
	}
	return splice(body, edits), emitted, true, nil
}

// rewriteEdits returns the edits rewriteRequest makes to body, and the
// emitted names they replace; none, and a nil emittedNames, when it changes
// nothing. exposed, when not nil, reports the server's tools, and lets
// the single-underscore form through (see singleUnderscore).
func rewriteEdits(body []byte, server string, exposed func(string) bool) ([]edit, emittedNames, error) {
	if !json.Valid(body) {
		return nil, nil, fmt.Errorf("mcpdoor: request body: %w", ErrInvalidJSON)
	}
	doc := scan(body)
	origins := parseProvenance(body[doc.provenance.start:doc.provenance.end])
	var edits []edit
	var renamed []bool // by index in doc.calls
	// A trajectory names few tools: each name's literal is made once.
	lits := make(map[string][]byte)
	for i, c := range doc.calls {
		name := c.target(origins, server, exposed)
		if name == c.name {
			continue
		}
		lit, ok := lits[name]
		if !ok {
			lit = quote(name)
			lits[name] = lit
		}
		if edits == nil {
			edits = make([]edit, 0, len(doc.calls)-i)
			renamed = make([]bool, len(doc.calls))
		}
		edits = append(edits, edit{c.at, lit})
		renamed[i] = true
	}
	if len(edits) == 0 {
		return nil, nil, nil
	}
	// Every item of a call_id renamed is recorded, renamed or not.
	emitted := make(emittedNames, len(edits))
	for i, c := range doc.calls {
		if renamed[i] {
			emitted[c.id] = nil
		}
	}
	emittedLits := make(map[string]string)
	for _, c := range doc.calls {
		names, renamed := emitted[c.id]
		if !renamed {
			continue
		}
		raw := body[c.at.start:c.at.end]
		lit, ok := emittedLits[string(raw)]
		if !ok {
			lit = string(raw)
			emittedLits[lit] = lit
		}
		emitted[c.id] = append(names, lit)
	}
	return edits, emitted, nil
}

// restoreResponse puts the emitted names back into the response.output
// function_call items of body, matched by call_id (duplicates in order): the
// first item with call_id X gets the first name recorded for X, the second
// the second, and so on. Items whose call_id has no name left are untouched,
// and so is every byte outside the restored names.
//
// A body that is not valid JSON is returned unchanged with an error wrapping
// ErrInvalidJSON; valid JSON that is not an object is returned unchanged with
// a nil error. An emitted name that is not a JSON string literal is an error,
// and body is returned unchanged.
func restoreResponse(body []byte, emitted emittedNames) ([]byte, error) {
	edits, err := restoreEdits(body, emitted)
	if err != nil {
		return body, err
	}
	return splice(body, edits), nil
}

// restoreEdits returns the edits restoreResponse makes to body.
func restoreEdits(body []byte, emitted emittedNames) ([]edit, error) {
	if !json.Valid(body) {
		return nil, fmt.Errorf("mcpdoor: response body: %w", ErrInvalidJSON)
	}
	for _, names := range emitted {
		for _, lit := range names {
			if !isStringLiteral(lit) {
				return nil, errors.New("mcpdoor: an emitted name is not a JSON string literal")
			}
		}
	}
	var edits []edit
	used := make(map[string]int)
	for _, c := range scan(body).calls {
		names := emitted[c.id]
		i := used[c.id]
		if i == len(names) {
			continue
		}
		used[c.id]++
		if lit := names[i]; lit != string(body[c.at.start:c.at.end]) {
			edits = append(edits, edit{c.at, []byte(lit)})
		}
	}
	return edits, nil
}

// call is a function_call item of response.output that has a string name.
type call struct {
	id    string // the call_id, or "" when the item has no string call_id
	hasID bool
	name  string // the decoded name
	at    span   // the name's string literal
}

// target returns the name the verifier should see for c.
func (c call) target(origins map[string]origin, server string, exposed func(string) bool) string {
	if o, ok := origins[c.id]; ok && c.hasID {
		if server == "" || o.server == server {
			return o.tool
		}
		return c.name
	}
	if name := Normalize(c.name, server); name != c.name || exposed == nil {
		return name
	}
	return singleUnderscore(c.name, server, exposed)
}

// singleUnderscore returns the tool that name, in the mcp_<server>_<tool>
// form some agents emit, names: only where that is unambiguous, for a
// server of known name, when <tool> is one of its tools and name itself is
// not. Any other name comes back as it is. NeMo Gym does not normalize
// this form; its agents do not emit it.
func singleUnderscore(name, server string, exposed func(string) bool) string {
	if server == "" || exposed(name) {
		return name
	}
	if tool, ok := strings.CutPrefix(name, "mcp_"+server+"_"); ok && tool != "" && exposed(tool) {
		return tool
	}
	return name
}

// document is what rewriteRequest and restoreResponse need to know of a body.
type document struct {
	calls      []call // in document order
	provenance span   // the top-level mcp_tool_call_provenance value
}

// scan finds the function_call items of body's response.output, which must
// be valid JSON.
func scan(body []byte) document {
	var doc document
	var response, output span
	members(body, rootOf(body), func(key []byte, v span) {
		switch string(key) {
		case "response":
			response = v
		case "mcp_tool_call_provenance":
			doc.provenance = v
		}
	})
	members(body, response, func(key []byte, v span) {
		if string(key) == "output" {
			output = v
		}
	})
	elements(body, output, func(item span) {
		var typeAt, nameAt, idAt span
		members(body, item, func(key []byte, v span) {
			switch string(key) {
			case "type":
				typeAt = v
			case "name":
				nameAt = v
			case "call_id":
				idAt = v
			}
		})
		// The type is compared in place: most items are not calls.
		if typeAt.end == 0 || body[typeAt.start] != '"' || string(decodeKey(body[typeAt.start:typeAt.end])) != "function_call" {
			return
		}
		name, ok := stringAt(body, nameAt)
		if !ok {
			return
		}
		id, hasID := stringAt(body, idAt)
		if len(doc.calls) == cap(doc.calls) {
			// Doubling, where append grows a long slice by a quarter: a
			// long trajectory's calls then cost twice their size, not five times.
			doc.calls = append(make([]call, 0, max(16, 2*cap(doc.calls))), doc.calls...)
		}
		doc.calls = append(doc.calls, call{id: id, hasID: hasID, name: name, at: nameAt})
	})
	return doc
}

// origin is a valid mcp_tool_call_provenance entry: the server a call went to
// and the tool's name there.
type origin struct{ server, tool string }

// parseProvenance returns the valid entries of an mcp_tool_call_provenance
// value, keyed by call_id. A value that is missing or not an object yields
// none; malformed entries are skipped so their items fall back to Normalize.
func parseProvenance(value []byte) map[string]origin {
	var entries map[string]json.RawMessage
	if len(value) == 0 || json.Unmarshal(value, &entries) != nil {
		return nil
	}
	origins := make(map[string]origin, len(entries))
	for id, entry := range entries {
		var fields map[string]json.RawMessage
		if json.Unmarshal(entry, &fields) != nil {
			continue
		}
		var o origin
		// A missing, null or non-string field leaves its value empty, which
		// is all json.Unmarshal's error would tell.
		_ = json.Unmarshal(fields["server_name"], &o.server)
		_ = json.Unmarshal(fields["tool_name"], &o.tool)
		if o.server != "" && o.tool != "" {
			origins[id] = o
		}
	}
	return origins
}

// edit replaces the bytes at a span with lit.
type edit struct {
	at  span
	lit []byte
}

// splice applies edits, sorted and not overlapping, to a copy of body. With no
// edits it returns body itself.
func splice(body []byte, edits []edit) []byte {
	if len(edits) == 0 {
		return body
	}
	size := len(body)
	for _, e := range edits {
		size += len(e.lit) - (e.at.end - e.at.start)
	}
	out := make([]byte, 0, size)
	last := 0
	for _, e := range edits {
		out = append(out, body[last:e.at.start]...)
		out = append(out, e.lit...)
		last = e.at.end
	}
	return append(out, body[last:]...)
}

// quote returns s as a JSON string literal.
func quote(s string) []byte {
	lit, _ := json.Marshal(s) // a string always marshals
	return lit
}

// isStringLiteral reports whether lit is exactly one JSON string literal.
func isStringLiteral(lit string) bool {
	n := len(lit)
	return n >= 2 && lit[0] == '"' && lit[n-1] == '"' && json.Valid([]byte(lit))
}
