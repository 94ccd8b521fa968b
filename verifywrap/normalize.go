package verifywrap

import "strings"

// Normalize returns the bare tool name the verifier knows for name, an MCP
// tool name as an agent recorded it ("mcp__<server>__<tool>").
//
// With a server name, Normalize strips exactly "mcp__" + server + "__" from
// the front of name and nothing else: with server "weather",
// "mcp__weather__get_weather" becomes "get_weather", while
// "mcp__other__get_weather" and "get_weather" are returned unchanged.
//
// With an empty server, Normalize strips the first namespace whatever the
// server: "mcp__", then a non-empty server segment up to the first "__", then
// that "__". So "mcp__store__ns__tool" becomes "ns__tool", and
// "mcp__dangling", which has no namespace, is returned unchanged.
//
// Normalize never returns an empty name: when nothing follows the namespace
// ("mcp__x__"), name is returned unchanged.
func Normalize(name, server string) string {
	tool, ok := cutNamespace(name, server)
	if !ok || tool == "" {
		return name
	}
	return tool
}

// cutNamespace returns what follows the namespace Normalize strips, and
// whether name carries that namespace.
func cutNamespace(name, server string) (tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", false
	}
	if server != "" {
		return strings.CutPrefix(rest, server+"__")
	}
	ns, tool, ok := strings.Cut(rest, "__")
	return tool, ok && ns != ""
}
