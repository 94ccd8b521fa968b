// Package verifywrap lets a /verify handler that knows only bare tool names
// score trajectories from MCP-native agents, which record their tool calls as
// mcp__<server>__<tool>:
//
//	package main
//
//	import (
//		"io"
//		"log"
//		"net/http"
//
//		"github.com/mcpdoor/mcpdoor/verifywrap"
//	)
//
//	func main() {
//		verify := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
//			io.Copy(w, r.Body) // sees "get_weather", not "mcp__weather__get_weather"
//		})
//		http.Handle("POST /verify", verifywrap.Wrap(verify, "weather", nil))
//		log.Fatal(http.ListenAndServe("localhost:8080", nil))
//	}
//
// Wrap reads the request body, a JSON object, and hands the wrapped handler a
// copy in which the name of every function_call item of response.output has
// lost this server's "mcp__weather__" prefix. In the handler's JSON response
// it puts back, matched by call_id, the names the model emitted, so the
// client sees its own trajectory unchanged.
//
// The package promises:
//
//   - Only names change. Arguments, other item types,
//     responses_create_params.tools and every other byte of both bodies
//     (whitespace, key order, number formatting, escapes) are kept as they
//     were; restored names are the model's exact bytes.
//   - Other servers' names and bare names are left alone (see Normalize),
//     and a top-level mcp_tool_call_provenance entry, when present and well
//     formed, decides the tool name for its call_id.
//   - Request bodies with nothing to change (not JSON, not an object, no
//     function_call items, no name of this server) reach the handler byte
//     for byte, and its response then streams to the client as if
//     unwrapped. Responses that are not JSON objects pass through as they
//     are.
//   - A request body over the limit (DefaultMaxBodyBytes unless
//     Options.MaxBodyBytes says otherwise) is refused with 413 and never
//     reaches the handler.
//   - The request body is held in memory once, about its size: the handler
//     reads the normalized copy as a stream from it, never a second copy.
package verifywrap
