package autoexpose

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/call"
	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A catalogDoc is the content of the catalog resource a Door serves, so that
// an agent, or a person, can see what the server offers: every tool the
// reader may call, with its schemas, annotations and route, and the
// server's session policy and limits. A client lists it with resources/list
// and reads it with resources/read, as one application/json text, this
// type's JSON (docs/catalog.md shows it):
//
//	{"server": "weather", "path": "/mcp",
//	 "sessions": {"policy": "stateless", "idle_timeout_ms": 0, "rollout": true,
//	              "token_header": "X-NeMo-Gym-Session-Token", "token_required": true, "token_ttl_ms": 0},
//	 "limits": {"max_body_bytes": 4194304, "call_timeout_ms": 0,
//	            "rate_limit": {"per_session": 0, "burst": 0}},
//	 "tools": [{"name": "get_weather", "description": "...", "inputSchema": {...},
//	            "outputSchema": {...}, "annotations": {...}, "route": "POST /get_weather"}]}
//
// Its URI is <scheme>://catalog, where the scheme is the server's name
// ([Config].Name) in lower case with each "_" written "-", since a URI scheme
// cannot hold "_" ("example_mcp_weather" serves
// "example-mcp-weather://catalog"), after "mcp-" when the name does not
// start with a letter. The catalog is served under mcp.catalog: true only.
//
// Like tools/list, the catalog is narrowed by the reader's session token: a
// reader whose token lists tools sees only those, a reader without a token
// every tool, and a reader whose token was sent but does not verify (a bad
// signature, another server's, expired) no catalog: resources/read answers
// the JSON-RPC error -32001, "Invalid Gym MCP session token.". It says nothing
// of how the server serves a tool (see catalogTool); the operator reads that
// in [Door.Report].
type catalogDoc struct {
	// Server is the server's name ([Config].Name).
	Server string `json:"server"`
	// Path is the MCP endpoint's path; "" over stdio.
	Path string `json:"path,omitempty"`
	// Sessions is how the server ties calls to sessions.
	Sessions struct {
		// Policy is stateless, stateful or exclusive (see
		// [MCPConfig].Stateful and Exclusive), or stdio.
		Policy string `json:"policy"`
		// IdleTimeoutMs is how long a stateful session lives without a
		// request (mcp.idle_timeout); 0 when the server is stateless.
		IdleTimeoutMs int64 `json:"idle_timeout_ms"`
		// Rollout reports whether the server follows NeMo Gym's rollout
		// contract (see [Rollout]): its tool calls then carry the
		// session token that /seed_session hands out.
		Rollout bool `json:"rollout"`
		// TokenHeader is the header that carries the session token, when
		// Rollout is true.
		TokenHeader string `json:"token_header,omitempty"`
		// TokenRequired reports whether a tool call without a token is
		// refused (false: mcp.rollout.allow_tokenless, stdio, or no
		// rollout contract).
		TokenRequired bool `json:"token_required"`
		// TokenTTLMs is how long a token stays valid (mcp.rollout.token_ttl);
		// 0: untimed.
		TokenTTLMs int64 `json:"token_ttl_ms"`
	} `json:"sessions"`
	// Limits are what one tool call may take.
	Limits struct {
		// MaxBodyBytes caps a call's arguments and the route's response
		// (mcp.max_body_bytes).
		MaxBodyBytes int64 `json:"max_body_bytes"`
		// CallTimeoutMs bounds one call (mcp.call_timeout); 0: none.
		CallTimeoutMs int64 `json:"call_timeout_ms"`
		// RateLimit is the calls each session, client address or the
		// server as a whole (By: session, client, server) may make
		// (mcp.rate_limit): PerSession a second, Burst at once; 0, 0 and ""
		// when there is no limit.
		RateLimit struct {
			PerSession float64 `json:"per_session"`
			Burst      int     `json:"burst"`
			By         string  `json:"by,omitempty"`
		} `json:"rate_limit"`
	} `json:"limits"`
	// Tools are the tools the reader may call, by name.
	Tools []catalogTool `json:"tools"`
}

// A catalogTool is a tool as the catalog shows it: what tools/list says of
// it, and the route that serves it. That is what a caller needs to call the
// tool and to understand what it does (a REST tool's method and path say
// which resource it reads or changes, as its default description does).
// How a call reaches the route — direct or replayed, and why, which names
// the router's middlewares by their Go function names — and where the
// input schema came from are the operator's, not a caller's: an attacker
// alone wants to know which routes skip which checks and which take
// arguments unchecked. [Door.Report] keeps them.
type catalogTool struct {
	Name         string               `json:"name"`
	Description  string               `json:"description,omitempty"`
	InputSchema  json.RawMessage      `json:"inputSchema"`
	OutputSchema json.RawMessage      `json:"outputSchema,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
	// Route is the route that serves the tool, e.g. "POST /get_weather".
	Route string `json:"route"`
}

// catalogEntry is t as the catalog shows it.
func catalogEntry(t *toolset.Tool) catalogTool {
	return catalogTool{
		Name:         t.Name,
		Description:  t.Description,
		InputSchema:  t.Input,
		OutputSchema: t.Output,
		Annotations:  t.Annotations,
		Route:        t.Route,
	}
}

// catalogURI returns the catalog's URI for the server name (see catalogDoc).
func catalogURI(name string) string {
	scheme := strings.ReplaceAll(strings.ToLower(name), "_", "-")
	if scheme == "" || scheme[0] < 'a' || scheme[0] > 'z' {
		scheme = "mcp-" + scheme
	}
	return scheme + "://catalog"
}

// catalog returns the catalog of the Door the builder makes, without its
// tools, or nil unless mcp.catalog is set.
func (b *builder) catalog(calls *call.Pipeline) *catalogDoc {
	m := &b.cfg.MCP
	if !m.Catalog {
		return nil
	}
	c := &catalogDoc{Server: b.cfg.Name, Path: m.path()}
	s := &c.Sessions
	switch {
	case b.stdio:
		s.Policy, c.Path = "stdio", ""
	case m.Exclusive:
		s.Policy = "exclusive"
	case m.Stateful:
		s.Policy = "stateful"
	default:
		s.Policy = "stateless"
	}
	if m.stateful() && !b.stdio {
		s.IdleTimeoutMs = m.idleTimeout().Milliseconds()
	}
	if b.contract != nil {
		s.Rollout = true
		s.TokenHeader = b.contract.TokenHeader()
		s.TokenRequired = !m.Rollout.AllowTokenless && !b.stdio
		s.TokenTTLMs = m.Rollout.TokenTTL.Milliseconds()
	}
	c.Limits.MaxBodyBytes = m.maxBodyBytes()
	c.Limits.CallTimeoutMs = m.CallTimeout.Milliseconds()
	if rl, ok := calls.Limiter(); ok {
		c.Limits.RateLimit.PerSession = rl.PerSession
		c.Limits.RateLimit.Burst = rl.Burst
		c.Limits.RateLimit.By = rl.By
	}
	return c
}

// addCatalog serves the catalog on s as a resource.
func (d *Door) addCatalog(s *mcp.Server) {
	uri := catalogURI(d.name)
	s.AddResource(&mcp.Resource{
		URI:         uri,
		Name:        "catalog",
		Title:       d.name + " catalog",
		Description: "What this server offers: every tool you may call, with its schemas, annotations and route, and the server's session policy and limits.",
		MIMEType:    "application/json",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		c, refused := d.catalogFor(req)
		if refused != nil {
			return nil, refused
		}
		data, err := json.Marshal(c)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(data)}}}, nil
	})
}

// catalogFor returns the catalog as the reader of req may see it: with the
// tools its session token allows, as tools/list narrows them; or, for a
// token that was sent but does not verify, the error that refuses it (see
// Door.visible).
func (d *Door) catalogFor(req mcp.Request) (*catalogDoc, *jsonrpc.Error) {
	visible, refused := d.visible(mcpcall.Header(req))
	if refused != nil {
		return nil, refused
	}
	c := *d.catalog
	c.Tools = make([]catalogTool, 0, len(d.names))
	for _, name := range d.names {
		if visible == nil || visible(name) {
			c.Tools = append(c.Tools, catalogEntry(d.tools[name]))
		}
	}
	return &c, nil
}
