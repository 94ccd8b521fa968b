package autoexpose

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrNoClient is the error [Elicit], [Sample] and [Roots] wrap on the HTTP door: no
// MCP client made the request, so there is no one to ask. A handler that
// can take the answer another way (a field of its request body) checks for
// it with [errors.Is]. It also matches [errors.ErrUnsupported].
var ErrNoClient = unsupported("no MCP client: the request came through the HTTP door")

// unsupportedError is a question that cannot be put to a user; it matches
// errors.ErrUnsupported.
type unsupportedError struct{ msg string }

func unsupported(msg string) error { return &unsupportedError{msg} }

func (e *unsupportedError) Error() string        { return e.msg }
func (e *unsupportedError) Is(target error) bool { return target == errors.ErrUnsupported }

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
	params := &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: schema}
	if schema == nil {
		params.RequestedSchema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	ans, err := ask(ctx, "elicit", params, func(ss *mcp.ServerSession) (mcp.InputResponse, error) {
		return ss.Elicit(ctx, params)
	})
	if err != nil {
		return nil, err
	}
	res, ok := ans.(*mcp.ElicitResult)
	if !ok {
		return nil, fmt.Errorf("mcpdoor: elicit: the client answered with a %T", ans)
	}
	if err := checkElicitAnswer(schema, res); err != nil {
		return nil, fmt.Errorf("mcpdoor: elicit: %w", err)
	}
	return res, nil
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
	if params == nil {
		//lint:ignore SA1019 see above
		params = &mcp.CreateMessageParams{}
	}
	ans, err := ask(ctx, "sample", params, func(ss *mcp.ServerSession) (mcp.InputResponse, error) {
		//lint:ignore SA1019 see above
		return ss.CreateMessage(ctx, params)
	})
	if err != nil {
		return nil, err
	}
	switch res := ans.(type) {
	//lint:ignore SA1019 see above
	case *mcp.CreateMessageResult:
		return res, nil
	//lint:ignore SA1019 see above
	case *mcp.CreateMessageWithToolsResult:
		// What a client answers an input request with.
		if len(res.Content) != 1 {
			return nil, fmt.Errorf("mcpdoor: sample: the client answered with %d content blocks, want 1", len(res.Content))
		}
		//lint:ignore SA1019 see above
		return &mcp.CreateMessageResult{Meta: res.Meta, Content: res.Content[0], Model: res.Model, Role: res.Role, StopReason: res.StopReason}, nil
	}
	return nil, fmt.Errorf("mcpdoor: sample: the client answered with a %T", ans)
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
	//lint:ignore SA1019 see above
	params := &mcp.ListRootsParams{}
	ans, err := ask(ctx, "roots", params, func(ss *mcp.ServerSession) (mcp.InputResponse, error) {
		//lint:ignore SA1019 see above
		return ss.ListRoots(ctx, params)
	})
	if err != nil {
		return nil, err
	}
	//lint:ignore SA1019 see above
	res, ok := ans.(*mcp.ListRootsResult)
	if !ok {
		return nil, fmt.Errorf("mcpdoor: roots: the client answered with a %T", ans)
	}
	return res, nil
}

type inputKeyKey struct{}

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
	return context.WithValue(ctx, inputKeyKey{}, key)
}

// ask puts question to the client of the MCP call in ctx (feature: elicit,
// sample or roots): with send on a session that can carry it, as an input
// request of the 2026-07-28 protocol on one that cannot.
func ask(ctx context.Context, feature string, question mcp.InputRequest, send func(*mcp.ServerSession) (mcp.InputResponse, error)) (mcp.InputResponse, error) {
	c := mcpCallFrom(ctx)
	if c == nil {
		return nil, fmt.Errorf("mcpdoor: %s: %w", feature, ErrNoClient)
	}
	version := c.version
	inputRequests := version >= protocolVersion2026
	if c.stateless && !inputRequests {
		return nil, fmt.Errorf("mcpdoor: %s: %w", feature, unsupported(fmt.Sprintf(
			"a stateless MCP session cannot send the client a request on protocol %s: serve stateful sessions (mcp.stateful: true), or use a client of protocol 2026-07-28 or later", version)))
	}
	caps := c.clientCapabilities()
	var capable bool
	name := map[string]string{"elicit": "elicitation", "sample": "sampling", "roots": "roots"}[feature]
	if caps != nil {
		switch feature {
		case "elicit":
			capable = caps.Elicitation != nil
		case "sample":
			//lint:ignore SA1019 sampling stays in the protocol for the deprecation window, and clients use it
			capable = caps.Sampling != nil
		default:
			//lint:ignore SA1019 roots stay in the protocol for the deprecation window, and clients use them
			capable = caps.RootsV2 != nil
		}
	}
	if !capable {
		c.input.lacks(name)
		return nil, fmt.Errorf("mcpdoor: %s: %w", feature, unsupported(fmt.Sprintf(
			"the MCP client does not support %s (it declared no %s capability)", name, name)))
	}
	var (
		ans mcp.InputResponse
		err error
	)
	if inputRequests {
		key, _ := ctx.Value(inputKeyKey{}).(string)
		ans, err = c.input.ask(key, question)
	} else {
		ans, err = send(c.session)
	}
	if err != nil {
		return nil, fmt.Errorf("mcpdoor: %s: %w", feature, err)
	}
	return ans, nil
}

// checkElicitAnswer checks an accepted answer's content against the schema
// asked with, and fills in the schema's defaults, as the go-sdk does for the
// answers it receives itself.
func checkElicitAnswer(schema *jsonschema.Schema, res *mcp.ElicitResult) error {
	if res.Action != "accept" || res.Content == nil || schema == nil {
		return nil
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return fmt.Errorf("the requested schema: %w", err)
	}
	if err := resolved.Validate(res.Content); err != nil {
		return fmt.Errorf("the answer does not match the requested schema: %w", err)
	}
	return resolved.ApplyDefaults(&res.Content)
}
