// Package exposed tells package verifywrap, through a /verify request's
// context, what the door in front of it knows and verifywrap's own API has
// no place for (a verifier wrapped by hand knows only the server's name):
// the door's tools, so that /verify can read every agent's form of their
// names where it is unambiguous, and the check of the trajectory's claimed
// calls, when mcp.rollout.claims is on.
package exposed

import (
	"context"
	"strings"
)

// Door is what a door tells verifywrap of one /verify request.
type Door struct {
	// Tools are the door's tools; nil for none known.
	Tools *Tools
	// Check, when not nil, checks the trajectory's claimed calls of the
	// server's tools (see Claim): it is called once, with every claim in
	// document order and the receipts the request carries, keyed by
	// call_id.
	Check func(claims []Claim, receipts map[string]string) Verdict
}

// A Claim is a function_call item of a trajectory that names one of the
// server's tools: by the mcp_tool_call_provenance sidecar, or, without
// one, by a namespaced form of its name.
type Claim struct {
	ID        string // the call_id; "" for none
	Emitted   string // the name as the agent emitted it
	Tool      string // the server's tool it names
	Arguments string // the item's arguments, the JSON text the string holds
	// Duplicate: another function_call item of the trajectory has its
	// call_id, which then identifies no one call.
	Duplicate bool
}

// A Verdict is what Check found.
type Verdict struct {
	// Refuse, when not nil, says why the trajectory is refused: /verify
	// answers 422 with its text, and the verifier does not run.
	Refuse error
	// Rejected are the failed claims, by index in the claims, each with why
	// (RejectNotExecuted and the others): the verifier sees them as the
	// agent emitted them, listed under RejectionsKey.
	Rejected map[int]string
	// Receipts are the accepted claims' receipts, by call_id, for the
	// answer to carry.
	Receipts map[string]string
}

// Why a claim fails.
const (
	RejectNotExecuted = "not_executed"       // no record of the call, and no valid receipt
	RejectArguments   = "arguments_mismatch" // the call was executed with other arguments
	RejectDuplicate   = "duplicate"          // a second claim of one call, or a call_id claimed twice
)

// The members /verify adds: RejectionsKey to the request body the verifier
// sees (mcp.rollout.claims: mark), ReceiptsKey to the response object of
// its answer.
const (
	RejectionsKey = "mcp_tool_call_rejections"
	ReceiptsKey   = "mcp_tool_call_receipts"
)

type key struct{}

// With returns ctx carrying d.
func With(ctx context.Context, d *Door) context.Context {
	return context.WithValue(ctx, key{}, d)
}

// From returns what With put in ctx, or nil.
func From(ctx context.Context) *Door {
	d, _ := ctx.Value(key{}).(*Door)
	return d
}

// Tools is a door's set of tools, and how each agent names them.
type Tools struct {
	set       map[string]bool
	sanitized map[string]string // san(tool) -> tool; "" where two tools share it
}

// NewTools returns the set of names.
func NewTools(names []string) *Tools {
	t := &Tools{set: make(map[string]bool, len(names)), sanitized: make(map[string]string, len(names))}
	for _, n := range names {
		t.set[n] = true
	}
	for _, n := range names {
		s := Sanitize(n)
		if _, taken := t.sanitized[s]; taken && t.sanitized[s] != n {
			t.sanitized[s] = ""
			continue
		}
		t.sanitized[s] = n
	}
	return t
}

// Has reports whether name is one of the tools.
func (t *Tools) Has(name string) bool { return t != nil && t.set[name] }

// Sanitize is the Hermes agent's san: every character outside
// [A-Za-z0-9_] becomes '_'.
func Sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || ('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') {
			return r
		}
		return '_'
	}, s)
}

// Resolve returns the tool that name, as an agent emitted it for the server
// called server, names, and true; or name and false when it names none.
// Only a name that is not itself a tool is read, in these forms, and only
// where what is left is one of the tools:
//
//   - mcp__<server>__<tool>, as Claude Code emits it, and
//     mcp_<server>_<tool>;
//   - mcp__<san(server)>__<san(tool)> and mcp_<san(server)>_<san(tool)>, as
//     the Hermes agent does (san: Sanitize), where one tool alone has that
//     san(tool);
//   - <server>__<tool>, as the OpenClaw agent does.
//
// A plain tool name is the tool itself (codex, simple_agent).
func (t *Tools) Resolve(name, server string) (string, bool) {
	if t == nil || server == "" || t.set[name] {
		return name, false
	}
	for _, prefix := range []string{"mcp__" + server + "__", "mcp_" + server + "_"} {
		if rest, ok := strings.CutPrefix(name, prefix); ok && t.set[rest] {
			return rest, true
		}
	}
	san := Sanitize(server)
	for _, prefix := range []string{"mcp__" + san + "__", "mcp_" + san + "_"} {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			if tool := t.sanitized[rest]; tool != "" {
				return tool, true
			}
		}
	}
	if rest, ok := strings.CutPrefix(name, server+"__"); ok && t.set[rest] {
		return rest, true
	}
	return name, false
}
