package verifywrap

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/exposed"
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
// nothing. door, when not nil, is what the door in front knows: its tools,
// whose every agent's name form it reads (exposed.Tools.Resolve), and the
// check of the claims (see checkClaims).
func rewriteEdits(body []byte, server string, door *exposed.Door) ([]edit, emittedNames, error) {
	p, err := plan(body, server, door)
	return p.edits, p.emitted, err
}

// A rewrite is what Wrap does to one /verify request, and to its answer.
type rewrite struct {
	edits    []edit       // to the request body, sorted
	emitted  emittedNames // the names the edits replace, to restore in the answer
	receipts map[string]string
	refuse   error // the trajectory is refused: the verifier does not run
}

// plan returns the rewrite of body, for server and door (nil: no door):
// each call's target name, the door's verdict on the claims among them,
// the renames as edits, the rejections as the root's last member, and the
// emitted names to restore in the answer.
func plan(body []byte, server string, door *exposed.Door) (rewrite, error) {
	if !json.Valid(body) {
		return rewrite{}, fmt.Errorf("mcpdoor: request body: %w", ErrInvalidJSON)
	}
	doc := scan(body)
	targets, claims, claimed := resolveTargets(body, doc, server, door)
	var out rewrite
	var rejections []byte
	if len(claims) > 0 {
		v := door.Check(claims, parseReceipts(body, doc.receipts))
		if v.Refuse != nil {
			return rewrite{refuse: v.Refuse}, nil
		}
		out.receipts = v.Receipts
		for i := range v.Rejected {
			// A failed claim reaches the verifier as it was emitted.
			targets[claimed[i]] = doc.calls[claimed[i]].name
		}
		rejections = rejectionsMember(doc, claims, v.Rejected)
	}
	renamed := out.renameEdits(doc, targets)
	if rejections != nil {
		at := doc.root.end - 1
		out.edits = append(out.edits, edit{span{at, at}, rejections})
	}
	if renamed != nil {
		out.emitted = emittedOf(body, doc, renamed, len(out.edits))
	}
	return out, nil
}

// resolveTargets returns the name each call of doc targets, and the claims
// among them the door checks, with each claim's index in doc.calls.
func resolveTargets(body []byte, doc document, server string, door *exposed.Door) (targets []string, claims []exposed.Claim, claimed []int) {
	origins, authoritative := parseProvenance(body[doc.provenance.start:doc.provenance.end])
	var tools *exposed.Tools
	if door != nil {
		tools = door.Tools
	}
	ids := make(map[string]int, len(doc.calls))
	for _, c := range doc.calls {
		if c.hasID {
			ids[c.id]++
		}
	}
	targets = make([]string, len(doc.calls))
	for i, c := range doc.calls {
		name, claim := c.target(origins, authoritative, ids[c.id] > 1, server, tools)
		targets[i] = name
		if claim && door != nil && door.Check != nil {
			args, _ := stringAt(body, c.args)
			claims = append(claims, exposed.Claim{ID: c.id, Emitted: c.name, Tool: name, Arguments: args, Duplicate: c.hasID && ids[c.id] > 1})
			claimed = append(claimed, i)
		}
	}
	return targets, claims, claimed
}

// rejectionsMember is the member the door's rejections of claims add to
// the root object, {"<key>":{"<call id>":"<why>",...}} in the order of the
// claims, with its leading comma where the root has members; nil when
// nothing was rejected. It is
// the root's last member, so that it is the one a decoder keeps over any
// the client sent.
func rejectionsMember(doc document, claims []exposed.Claim, rejected map[int]string) []byte {
	if len(rejected) == 0 {
		return nil
	}
	var member []byte
	if doc.rootMembers {
		member = append(member, ',')
	}
	member = append(member, quote(exposed.RejectionsKey)...)
	member = append(member, ':')
	sep := byte('{')
	for _, i := range slices.Sorted(maps.Keys(rejected)) {
		member = append(member, sep)
		sep = ','
		member = append(member, quote(claims[i].ID)...)
		member = append(member, ':')
		member = append(member, quote(rejected[i])...)
	}
	return append(member, '}')
}

// renameEdits adds to out an edit for each call of doc whose target is not
// the name it was emitted with, and returns which calls were renamed (by
// index in doc.calls; nil for none).
func (out *rewrite) renameEdits(doc document, targets []string) []bool {
	var renamed []bool
	// A trajectory names few tools: each name's literal is made once.
	lits := make(map[string][]byte)
	for i, c := range doc.calls {
		name := targets[i]
		if name == c.name {
			continue
		}
		lit, ok := lits[name]
		if !ok {
			lit = quote(name)
			lits[name] = lit
		}
		if out.edits == nil {
			out.edits = make([]edit, 0, len(doc.calls)-i+1)
			renamed = make([]bool, len(doc.calls))
		}
		out.edits = append(out.edits, edit{c.at, lit})
		renamed[i] = true
	}
	return renamed
}

// emittedOf records the names as emitted of every item of a call_id one of
// whose items was renamed, renamed or not, to restore in the answer.
func emittedOf(body []byte, doc document, renamed []bool, size int) emittedNames {
	emitted := make(emittedNames, size)
	for i, c := range doc.calls {
		if renamed[i] {
			emitted[c.id] = nil
		}
	}
	lits := make(map[string]string)
	for _, c := range doc.calls {
		names, renamed := emitted[c.id]
		if !renamed {
			continue
		}
		raw := body[c.at.start:c.at.end]
		lit, ok := lits[string(raw)]
		if !ok {
			lit = string(raw)
			lits[lit] = lit
		}
		emitted[c.id] = append(names, lit)
	}
	return emitted
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

// withReceipts returns edits, the edits to the answer body, with those
// that set its response object's exposed.ReceiptsKey member to receipts
// (by call_id): the member's value replaced, or the member added last. An
// answer without a response object gets none; the edits come back sorted.
func withReceipts(body []byte, edits []edit, receipts map[string]string) []edit {
	if len(receipts) == 0 {
		return edits
	}
	doc := scan(body)
	if doc.response.end == 0 || body[doc.response.start] != '{' {
		return edits
	}
	ids := make([]string, 0, len(receipts))
	for id := range receipts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var obj []byte
	for i, id := range ids {
		obj = append(obj, ',')
		if i == 0 {
			obj[0] = '{'
		}
		obj = append(obj, quote(id)...)
		obj = append(obj, ':')
		obj = append(obj, quote(receipts[id])...)
	}
	obj = append(obj, '}')
	if doc.receipts.end != 0 {
		edits = append(edits, edit{doc.receipts, obj})
	} else {
		var member []byte
		if doc.responseMembers {
			member = append(member, ',')
		}
		member = append(member, quote(exposed.ReceiptsKey)...)
		member = append(member, ':')
		member = append(member, obj...)
		at := doc.response.end - 1
		edits = append(edits, edit{span{at, at}, member})
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.at.start - b.at.start })
	return edits
}

// call is a function_call item of response.output that has a string name.
type call struct {
	id    string // the call_id, or "" when the item has no string call_id
	hasID bool
	name  string // the decoded name
	at    span   // the name's string literal
	args  span   // the arguments' value
}

// target returns the name the verifier should see for c, and whether c
// claims a call of one of the server's tools.
//
// A mcp_tool_call_provenance sidecar that is present, even {}, is
// authoritative and complete, as in NeMo Gym: a call it lists for server
// takes the entry's tool_name, and any other call keeps its name, never
// guessed from the string. A call_id that two items share (dup) identifies
// no one call: under a sidecar, neither is renamed. A call outside the
// sidecar named as one of the door's tools keeps its name, but claims that
// tool. Without a sidecar, the
// name is read: with the door's tools, in every agent's form
// (exposed.Tools.Resolve); without them, by Normalize.
func (c call) target(origins map[string]origin, authoritative, dup bool, server string, tools *exposed.Tools) (string, bool) {
	if authoritative {
		o, ok := origins[c.id]
		if !ok || !c.hasID || (server != "" && o.server != server) {
			// Outside the sidecar, a call is no MCP call of the server's;
			// one named as one of its tools is still a claim of it, for
			// the checks to bear out.
			return c.name, (!ok || !c.hasID) && tools.Has(c.name)
		}
		if dup {
			return c.name, true
		}
		return o.tool, true
	}
	if tools != nil {
		return tools.Resolve(c.name, server)
	}
	name := Normalize(c.name, server)
	return name, name != c.name
}

// document is what rewriteRequest and restoreResponse need to know of a body.
type document struct {
	calls       []call // in document order
	provenance  span   // the top-level mcp_tool_call_provenance value
	root        span
	rootMembers bool // the root is an object with members
	response    span // the top-level response value
	receipts    span // response's exposed.ReceiptsKey value
	// responseMembers: the response is an object with members.
	responseMembers bool
}

// scan finds the function_call items of body's response.output, which must
// be valid JSON.
func scan(body []byte) document {
	var doc document
	var output span
	doc.root = rootOf(body)
	members(body, doc.root, func(key []byte, v span) {
		doc.rootMembers = true
		switch string(key) {
		case "response":
			doc.response = v
		case "mcp_tool_call_provenance":
			doc.provenance = v
		}
	})
	members(body, doc.response, func(key []byte, v span) {
		doc.responseMembers = true
		switch string(key) {
		case "output":
			output = v
		case exposed.ReceiptsKey:
			doc.receipts = v
		}
	})
	elements(body, output, func(item span) {
		var typeAt, nameAt, idAt, argsAt span
		members(body, item, func(key []byte, v span) {
			switch string(key) {
			case "type":
				typeAt = v
			case "name":
				nameAt = v
			case "call_id":
				idAt = v
			case "arguments":
				argsAt = v
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
		doc.calls = append(doc.calls, call{id: id, hasID: hasID, name: name, at: nameAt, args: argsAt})
	})
	return doc
}

// origin is a valid mcp_tool_call_provenance entry: the server a call went to
// and the tool's name there.
type origin struct{ server, tool string }

// parseProvenance returns the valid entries of an mcp_tool_call_provenance
// value, keyed by call_id, and whether the value is an object, which makes
// it authoritative (see call.target). A value that is missing, null or not
// an object yields none, and is not; a malformed entry is skipped, and its
// call is then no call of the server's.
func parseProvenance(value []byte) (map[string]origin, bool) {
	var entries map[string]json.RawMessage
	if len(value) == 0 || json.Unmarshal(value, &entries) != nil || entries == nil {
		return nil, false
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
		if strings.TrimSpace(o.server) != "" && strings.TrimSpace(o.tool) != "" {
			origins[id] = o
		}
	}
	return origins, true
}

// parseReceipts returns the receipts of the response's exposed.ReceiptsKey
// object at v: its string members, by call_id.
func parseReceipts(body []byte, v span) map[string]string {
	var receipts map[string]string
	members(body, v, func(key []byte, r span) {
		if s, ok := stringAt(body, r); ok {
			if receipts == nil {
				receipts = make(map[string]string)
			}
			receipts[string(key)] = s
		}
	})
	return receipts
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
