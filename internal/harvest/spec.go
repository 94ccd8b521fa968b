// Package harvest finds the MCP tools of a server's routes: a tool route's,
// a REST route's, a catch-all dispatcher's, each from the route, the
// OpenAPI document, the typed handler, the generated facts and the
// declarations, as a Spec.
package harvest

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/argcheck"
	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/dispatch"
	"github.com/mcpdoor/mcpdoor/internal/openapi"
)

// A Spec is one MCP tool as the harvest finds it: what tools/list
// advertises, the route a call is dispatched to, and how, for the
// operator's report; the catalog a client reads shows less.
type Spec struct {
	Name         string
	Description  string
	InputSchema  *jsonschema.Schema
	OutputSchema *jsonschema.Schema
	// Annotations are the MCP tool annotations (readOnlyHint, ...); a
	// read-only tool's failures have effect not_applied.
	Annotations *mcp.ToolAnnotations
	// Route is the route that serves the tool, e.g. "POST /get_weather".
	Route string
	// Verdict and Reasons say how calls reach the route (see package
	// internal/detect).
	Verdict detect.Verdict
	Reasons []string
	// SchemaSource says where the input schema came from: one of the
	// source constants (schema.go), the report's Schema column.
	SchemaSource string

	Detected *detect.Route // the route that serves the tool
	Note     string        // why the schema is what it is, for the report
	REST     *REST         // a REST tool's request plan (see rest.go); nil for a tool route
	// BodyArg, when set, is the argument that holds the route's body,
	// which is not a JSON object (see bodyInput).
	BodyArg string
	// Refusal is why the tool cannot be served as it stands (a REST tool
	// whose arguments cannot be one object); reported if the tool is kept.
	Refusal error
}

// REST is how a REST tool's arguments make its route's request.
type REST struct {
	Method string
	Params []string // the path parameters, in the pattern's order
	Query  []string // the members that are query parameters
	// Body: the request has a body, the body members as a JSON object ("{}"
	// when there are none): the members that are neither path nor query
	// parameters. Without a body, they are query parameters too.
	Body bool
	// Split: some members may not be the body's, so that the arguments
	// must be taken apart; without, they are the body as they are.
	Split bool
	// BodyArg, when set, is the member that holds the body, which is not
	// a JSON object (see bodyInput): its value is the body.
	BodyArg string
	// BodySchema is the body's own schema when a typed handler checks it
	// and the input schema says all it says: the door's check then stands
	// for the handler's.
	BodySchema *argcheck.Schema
	Op         *openapi.Operation // the route's operation in Config.OpenAPI, or nil
	Arguments  string             // for the report: which argument goes where
	Template   *dispatch.Template // set by the builder, for a route with path parameters
}

// A Declaration is what the config says of one tool (Config.Declared,
// Config.CatchAll): each field set is taken over what the route says.
type Declaration struct {
	Description string
	Input       *jsonschema.Schema
	Output      *jsonschema.Schema
	Annotations *mcp.ToolAnnotations
}
