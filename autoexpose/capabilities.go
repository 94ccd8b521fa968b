package autoexpose

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What a door declares to a client, in initialize (up to 2025-11-25) and
// server/discover (2026-07-28), is what it serves:
//
//   - tools, without listChanged: the door's tools are those Install
//     found, and it never sends notifications/tools/list_changed;
//   - logging: a handler's Log reaches the client (internal/mcpcall);
//   - resources, without listChanged or subscribe, under mcp.catalog only:
//     the catalog, which does not change either;
//   - nothing else. A method of a capability the door does not declare —
//     prompts/list and prompts/get, the resources methods without the
//     catalog, completion/complete — is answered method not found (-32601;
//     HTTP 404 at 2026-07-28), as the protocol asks, not with an empty list
//     a client would read as "none yet".
//
// What is added to the server Door.Server returns, the go-sdk declares as
// it always does (prompts or resources added there are declared, with the
// listChanged the go-sdk honours), and the door then serves their methods.

// serverOptions are the options of the door's go-sdk server: its
// capabilities, and who may cache its listings (see cacheable).
func (d *Door) serverOptions() *mcp.ServerOptions {
	//lint:ignore SA1019 logging stays in the protocol for the deprecation window, and Log serves older clients
	caps := &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Tools: &mcp.ToolCapabilities{}}
	if d.catalog != nil {
		caps.Resources = &mcp.ResourceCapabilities{}
	}
	return &mcp.ServerOptions{Capabilities: caps, SetCacheable: d.cacheable}
}

// capabilityOf returns the server capability a client method belongs to, or
// "" for a method every server serves.
func capabilityOf(method string) string {
	switch method {
	case "prompts/list", "prompts/get":
		return "prompts"
	case "resources/list", "resources/read", "resources/templates/list", "resources/subscribe", "resources/unsubscribe":
		return "resources"
	case "completion/complete":
		return "completions"
	}
	return ""
}

// undeclared returns the method-not-found error for a request of a
// capability the server does not declare, or nil. next is the go-sdk's
// handler, which the check asks when Config.ExtendServer was given the
// server: the go-sdk declares prompts and resources once there are
// any, and so the door knows whether there are only by listing them.
func (d *Door) undeclared(ctx context.Context, next mcp.MethodHandler, method string, req mcp.Request) error {
	capability := capabilityOf(method)
	switch {
	case capability == "":
		return nil
	case capability == "completions":
		// The door's server has no completion handler, and no one can give
		// it one: its options are the door's.
	case capability == "resources" && d.catalog != nil:
		return nil
	case d.extended && d.serverHas(ctx, next, req, capability):
		return nil
	}
	// The go-sdk writes its own text for the code: method not found:
	// "<method>".
	return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}
}

// serverHas reports whether the go-sdk server holds prompts, or resources
// or resource templates (capability), as it declares them: by listing
// them in the session of req.
func (d *Door) serverHas(ctx context.Context, next mcp.MethodHandler, req mcp.Request, capability string) bool {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	if capability == "prompts" {
		res, err := next(ctx, "prompts/list", &mcp.ListPromptsRequest{Session: ss, Params: &mcp.ListPromptsParams{}})
		list, ok := res.(*mcp.ListPromptsResult)
		return err == nil && ok && len(list.Prompts) > 0
	}
	res, err := next(ctx, "resources/list", &mcp.ListResourcesRequest{Session: ss, Params: &mcp.ListResourcesParams{}})
	if list, ok := res.(*mcp.ListResourcesResult); err == nil && ok && len(list.Resources) > 0 {
		return true
	}
	res, err = next(ctx, "resources/templates/list", &mcp.ListResourceTemplatesRequest{Session: ss, Params: &mcp.ListResourceTemplatesParams{}})
	templates, ok := res.(*mcp.ListResourceTemplatesResult)
	return err == nil && ok && len(templates.ResourceTemplates) > 0
}

// cacheable decides who may cache a listing (the go-sdk's
// ServerOptions.SetCacheable): under the rollout contract, what tools/list
// and the catalog show depends on the caller's token, whose allow-list
// narrows them (see Door.visible), so they are "private" — a cache shared
// by several callers would hand one rollout's tool set to another, or the
// whole set to a narrowed rollout. Every other answer (server/discover,
// resources/list, which names the catalog to every caller) is the same for
// everyone: "public", the go-sdk's default.
func (d *Door) cacheable(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	if d.calls == nil || d.calls.contract == nil {
		return
	}
	switch r := req.(type) {
	case *mcp.ListToolsRequest:
		c.CacheScope = "private"
	case *mcp.ReadResourceRequest:
		if d.catalog != nil && r.Params != nil && r.Params.URI == catalogURI(d.name) {
			c.CacheScope = "private"
		}
	}
}
