package mcpcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrNoClient is the error Elicit, Sample and Roots wrap outside an MCP
// call (the HTTP door): no one to ask. It matches errors.ErrUnsupported;
// autoexpose.ErrNoClient is this value.
var ErrNoClient = unsupported("no MCP client: the request came through the HTTP door")

// unsupportedError is a question that cannot be put to a user; it matches
// errors.ErrUnsupported.
type unsupportedError struct{ msg string }

func unsupported(msg string) error { return &unsupportedError{msg} }

func (e *unsupportedError) Error() string        { return e.msg }
func (e *unsupportedError) Is(target error) bool { return target == errors.ErrUnsupported }

// Elicit asks the user of the client of the call in ctx to fill in a form
// (elicitation/create), as autoexpose.Elicit documents, and checks the
// accepted answer against schema.
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

// Sample asks the client of the call in ctx for a completion from its
// model (sampling/createMessage), as autoexpose.Sample documents.
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

// Roots asks the client of the call in ctx for its roots (roots/list), as
// autoexpose.Roots documents.
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

// InputKey returns a copy of ctx under which the question Elicit, Sample
// or Roots asks has key as its input request key, as autoexpose.InputKey
// documents.
func InputKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, inputKeyKey{}, key)
}

// ask puts question to the client of the MCP call in ctx (feature: elicit,
// sample or roots): with send on a session that can carry it, as an input
// request of the 2026-07-28 protocol on one that cannot.
func ask(ctx context.Context, feature string, question mcp.InputRequest, send func(*mcp.ServerSession) (mcp.InputResponse, error)) (mcp.InputResponse, error) {
	c := From(ctx)
	if c == nil {
		return nil, fmt.Errorf("mcpdoor: %s: %w", feature, ErrNoClient)
	}
	version := c.Version
	inputRequests := version >= ProtocolVersion2026
	if c.Stateless && !inputRequests {
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
		ans, err = send(c.Session)
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
