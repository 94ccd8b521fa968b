package autoexpose

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
)

// ErrNoClient is the error [Elicit], [Sample] and [Roots] wrap on the HTTP door: no
// MCP client made the request, so there is no one to ask. A handler that
// can take the answer another way (a field of its request body) checks for
// it with [errors.Is]. It also matches [errors.ErrUnsupported].
var ErrNoClient = mcpcall.ErrNoClient

// Elicit asks the user of the MCP client that made the current tool call to
// fill in a form (an MCP elicitation/create request): message says what for,
// and schema, an object schema of flat properties (strings, numbers,
// integers, booleans, enums), what to fill in; nil asks for a plain accept
// or decline. Use the handler's request context:
//
//	res, err := autoexpose.Elicit(r.Context(), "Delete 3 files?", nil)
//	if err != nil { ... }
//	if res.Action != "accept" { ... } // "decline" or "cancel"
//
// res.Action is what the user did: "accept", "decline" or "cancel"; with
// "accept", res.Content holds the fields filled in, checked against schema,
// with its defaults filled in (see [mcp.ElicitResult]).
//
// Where no user can be asked, Elicit returns an error that matches
// [errors.ErrUnsupported]: wrapping [ErrNoClient] on the HTTP door; and for an
// MCP client that declared no elicitation capability, or a call over a
// stateless session of a protocol before 2026-07-28.
//
// Which session policies carry the question: a stateful session (mcp.stateful
// or mcp.exclusive) sends it on the call's stream and waits for the answer,
// as does stdio. A stateless door cannot send the client a request; on
// protocol 2026-07-28 and later it asks through the protocol's own input
// requests instead (SEP-2322): the call's result asks the question, the
// client calls the tool again with the answer, and the handler runs again
// from the start, when the same Elicit returns the answer. Until then
// Elicit returns an error that is neither of the above: the handler returns
// it, and what the handler answers is dropped. So a handler does its work
// after Elicit, not before, and asks its questions one after another: an
// answer is matched to its question by the question's place among those of
// the run, and by its content; or by the key the handler names for it
// ([InputKey]).
//
// On protocol 2026-07-28 a call that asked what the client declared no
// capability for, and then failed (its route answered a status of 400 or
// more), is answered with the protocol's MissingRequiredClientCapabilityError
// (JSON-RPC -32021, HTTP 400), naming the capability, in place of the
// route's answer; a route that goes on without the answer (a status below
// 400) keeps its answer.
func Elicit(ctx context.Context, message string, schema *jsonschema.Schema) (*mcp.ElicitResult, error) {
	return mcpcall.Elicit(ctx, message, schema)
}

// Sample asks the MCP client that made the current tool call for a
// completion from its language model (an MCP sampling/createMessage
// request), and returns the model's message:
//
//	res, err := autoexpose.Sample(r.Context(), &mcp.CreateMessageParams{
//		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}},
//		MaxTokens: 200,
//	})
//
// It fails as [Elicit] does, with errors that match [errors.ErrUnsupported]
// ([ErrNoClient] on the HTTP door) for a client that declared no sampling
// capability, and it reaches the client over the same session policies, in
// the same ways.
//
// MCP deprecates sampling as of protocol 2026-07-28 (SEP-2577); clients keep
// it during the deprecation window.
//
//lint:ignore SA1019 sampling stays in the protocol for the deprecation window, and clients use it
func Sample(ctx context.Context, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return mcpcall.Sample(ctx, params)
}

// Roots asks the MCP client that made the current tool call for its roots
// (an MCP roots/list request): the directories or files it lets the
// server work in.
//
//	res, err := autoexpose.Roots(r.Context())
//	for _, root := range res.Roots { ... } // root.URI, "file:///home/ada/project"
//
// It fails as [Elicit] does, with errors that match [errors.ErrUnsupported]
// ([ErrNoClient] on the HTTP door) for a client that declared no roots
// capability, and it reaches the client over the same session policies, in
// the same ways.
//
// MCP deprecates roots as of protocol 2026-07-28 (SEP-2577); clients keep
// them during the deprecation window.
//
//lint:ignore SA1019 roots stay in the protocol for the deprecation window, and clients use them
func Roots(ctx context.Context) (*mcp.ListRootsResult, error) {
	return mcpcall.Roots(ctx)
}

// InputKey returns a copy of ctx under which the question that [Elicit],
// [Sample] or [Roots] asks is the input request key of the 2026-07-28
// protocol's input-required result (SEP-2322): the key the client answers
// it under. Without one, the key is made from the question's place among
// those of the run and from its content. Name a key where a client looks
// for it, or answers it unasked:
//
//	res, err := autoexpose.Elicit(autoexpose.InputKey(r.Context(), "user_name"), "What is your name?", schema)
//
// The call's answer under key is the question's answer, whatever the
// question: give each question of a handler its own key. A key names
// nothing on a session that carries the question itself (stateful, stdio,
// protocols before 2026-07-28).
func InputKey(ctx context.Context, key string) context.Context {
	return mcpcall.InputKey(ctx, key)
}
