package fastpath

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/mcpcall"
	"github.com/mcpdoor/mcpdoor/internal/telemetry"
	"github.com/mcpdoor/mcpdoor/internal/wire"
)

// A fastCall is a tools/call request the fast path serves:
// what it read of the request's body.
type fastCall struct {
	id       []byte           // the request's id, as sent; the go-sdk writes it back the same
	tool     *Tool            // the tool called
	args     json.RawMessage  // its arguments, as sent
	progress any              // _meta.progressToken as the go-sdk decodes it (a string or a float64), or nil
	level    mcp.LoggingLevel //lint:ignore SA1019 see mcpcall.LogLevels
	version  string           // the request's protocol version
	// capabilities are the client's, from _meta under 2026-07-28, as sent.
	capabilities json.RawMessage
	// answers and state are the client's answers to the questions of an
	// earlier round, and the state it echoes (2026-07-28).
	answers mcp.InputResponseMap
	state   string
	// trace is the W3C trace context and baggage of _meta (see
	// telemetry.TraceKeys), for the call's span.
	trace telemetry.TraceMeta
}

// readCall reads body as the one tools/call request of an HTTP request
// with protocol version version and header h, or reports that the fast path
// must not serve it (ok false): the go-sdk then answers it.
//
// It takes only the request the go-sdk answers by calling the tool: valid
// JSON and UTF-8, nested at most maxDepth deep, one object with exactly the
// keys jsonrpc ("2.0"), id, method ("tools/call") and params; params with
// name (a tool the fast path serves), arguments and _meta (and under
// 2026-07-28 inputResponses and requestState), and nothing else; _meta
// with only the keys the protocol version gives (see readMeta). An id is a string of printable ASCII without escapes, or an
// integer of at most 15 digits: the go-sdk writes exactly those back as
// they came (it reads a number as a float64 and writes it as an integer,
// and a string through encoding/json). Under 2026-07-28 the Mcp-Method and
// Mcp-Name headers must name the method and the tool. Anything else —
// unusual spellings included — is left to the go-sdk, which answers it with
// whatever error it has for it.
func (f *Path) readCall(body []byte, version string, h http.Header) (*fastCall, bool) {
	if !utf8.Valid(body) || !json.Valid(body) || !withinDepth(body) {
		return nil, false
	}
	c := &fastCall{version: version}
	var seen [4]bool // jsonrpc, id, method, params
	var params []byte
	ok := wire.Members(body, func(key, val []byte) bool {
		i := indexOf(requestKeys[:], key)
		if i < 0 || seen[i] {
			return false
		}
		seen[i] = true
		switch i {
		case 0:
			return string(val) == `"2.0"`
		case 1:
			c.id = val
			return plainID(val)
		case 2:
			return string(val) == `"tools/call"`
		default:
			params = val
			return true
		}
	})

	if !ok || seen != [4]bool{true, true, true, true} || !f.readParams(c, params, h) {
		return nil, false
	}
	return c, true
}

// indexOf returns the index in keys of key, a JSON string as written, or
// -1: a key spelled with escapes is none of them.
func indexOf(keys []string, key []byte) int {
	key = key[1 : len(key)-1]
	for i, k := range keys {
		if k == string(key) {
			return i
		}
	}
	return -1
}

// requestKeys are the keys of a JSON-RPC request, in the order of readCall's
// seen.
var requestKeys = [...]string{"jsonrpc", "id", "method", "params"}

// readParams reads a tools/call request's params into c: name, arguments
// and _meta; under 2026-07-28, also the answers to the questions of an
// earlier round (inputResponses, requestState; see internal/mcpcall input.go).
func (f *Path) readParams(c *fastCall, params []byte, h http.Header) bool {
	modern := c.version >= mcpcall.ProtocolVersion2026
	var seen [5]bool // the keys of paramKeys
	var meta []byte
	ok := wire.Members(params, func(key, val []byte) bool {
		i := indexOf(paramKeys[:], key)
		if i < 0 || seen[i] || (i > 2 && !modern) {
			return false
		}
		seen[i] = true
		switch i {
		case 0:
			if !plainString(val) {
				return false
			}
			c.tool = f.o.Tools[string(val[1:len(val)-1])]
			return c.tool != nil
		case 1:
			c.args = val
			return true
		case 2:
			meta = val
			return true
		case 3:

			return val[0] == '{' && json.Unmarshal(val, &c.answers) == nil
		default:
			if !plainString(val) {
				return false
			}
			c.state = string(val[1 : len(val)-1])
			return true
		}
	})

	if !ok || !seen[0] {
		return false
	}
	if modern && (h.Get("Mcp-Method") != "tools/call" || h.Get("Mcp-Name") != c.tool.Name) {
		return false
	}
	if meta == nil {
		// Every 2026-07-28 request carries its protocol version in _meta.
		return !modern
	}
	return readMeta(c, meta, modern)
}

// paramKeys are the keys of a tools/call request's params, in the order of
// readParams's seen.
var paramKeys = [...]string{"name", "arguments", "_meta", "inputResponses", "requestState"}

// readMeta reads a tools/call request's _meta into c. Before 2026-07-28,
// _meta may hold a progressToken and trace context (traceparent,
// tracestate, baggage: strings the go-sdk ignores) only; from 2026-07-28
// on, it must hold the protocol version (the request's own) and the
// client's capabilities, and may hold the client's information, a log
// level, a progressToken and trace context. Every value must be one the
// go-sdk accepts as it stands.
func readMeta(c *fastCall, meta []byte, modern bool) bool {
	var seen [len(metaKeys)]bool
	ok := wire.Members(meta, func(key, val []byte) bool {
		i := indexOf(metaKeys[:], key)
		if i < 0 || seen[i] || (i > 0 && i < firstTraceKey && !modern) {
			return false
		}
		seen[i] = true
		if i >= firstTraceKey {
			if !plainString(val) {
				return false
			}
			c.trace[i-firstTraceKey] = string(val[1 : len(val)-1])
			return true
		}
		switch i {
		case 0:
			c.progress = progressToken(val)
			return c.progress != nil
		case 1:
			return plainString(val) && string(val[1:len(val)-1]) == c.version
		case 2:
			c.capabilities = val
			return decodesStrictly(val, new(clientCapabilities))
		case 3:
			return stringFields(val, implementationKeys) || decodesStrictly(val, new(mcp.Implementation))
		default:
			if !plainString(val) {
				return false
			}
			c.level = mcp.LoggingLevel(val[1 : len(val)-1]) //lint:ignore SA1019 see mcpcall.LogLevels
			return slices.Contains(mcpcall.LogLevels, c.level)
		}
	})

	return ok && (!modern || seen[1] && seen[2])
}

// metaKeys are the _meta keys a tools/call request may carry, in the order
// of readMeta's seen.
var metaKeys = [...]string{
	"progressToken",
	mcp.MetaKeyProtocolVersion,
	mcp.MetaKeyClientCapabilities,
	mcp.MetaKeyClientInfo,
	mcp.MetaKeyLogLevel, //lint:ignore SA1019 see mcpcall.LogLevels
	telemetry.TraceKeys[0], telemetry.TraceKeys[1], telemetry.TraceKeys[2],
}

// firstTraceKey is the index in metaKeys of the first of telemetry.TraceKeys.
const firstTraceKey = 5

// clientCapabilities is the shape the go-sdk reads a request's client
// capabilities into: mcp.ClientCapabilities, with roots a pointer.
type clientCapabilities struct {
	mcp.ClientCapabilities
	Roots *mcp.RootCapabilities `json:"roots,omitempty"` //lint:ignore SA1019 the shape of what clients send
}

// implementationKeys are the string fields of mcp.Implementation.
var implementationKeys = []string{"name", "title", "description", "version", "websiteUrl"}

// stringFields reports whether val is a JSON object whose keys are all among
// keys, each once, and whose values are all strings: an object that
// decodes into a struct with those string fields, whichever decoder reads
// it.
func stringFields(val []byte, keys []string) bool {
	var seen uint64
	return wire.Members(val, func(key, v []byte) bool {
		i := indexOf(keys, key)
		if i < 0 || seen&(1<<i) != 0 || v[0] != '"' {
			return false
		}
		seen |= 1 << i
		return true
	})

}

// decodesStrictly reports whether the JSON object val decodes into v with
// no field unknown to v. encoding/json matches keys regardless of case
// where the go-sdk does not, so a value it accepts this way the go-sdk
// accepts too (a key of another case, it ignores); the converse does not
// hold, and such a request is left to the go-sdk.
func decodesStrictly(val []byte, v any) bool {
	if val[0] != '{' {
		return false
	}
	if string(val) == `{}` || string(val) == `{"roots":{"listChanged":true}}` {
		return true // what clients send, known good
	}
	dec := json.NewDecoder(bytes.NewReader(val))
	dec.DisallowUnknownFields()
	return dec.Decode(v) == nil
}

// progressToken returns a progress token as the go-sdk decodes it — a
// string, or a float64 — when it writes it back in its notifications the
// way it came; else nil.
func progressToken(val []byte) any {
	switch {
	case plainString(val):
		return string(val[1 : len(val)-1])
	case plainInteger(val):
		f, err := strconv.ParseFloat(string(val), 64)
		if err != nil {
			return nil
		}
		return f
	}
	return nil
}

// plainID reports whether a request id comes back from the go-sdk as it
// was sent.
func plainID(val []byte) bool { return plainString(val) || plainInteger(val) }

// plainString reports whether val is a JSON string of printable ASCII
// without escapes: encoding/json writes such a string back unchanged.
func plainString(val []byte) bool {
	if len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' {
		return false
	}
	for _, b := range val[1 : len(val)-1] {
		if b < 0x20 || b > 0x7e || b == '"' || b == '\\' {
			return false
		}
	}
	return true
}

// plainInteger reports whether val is an integer of at most 15 digits,
// without a leading zero or a minus zero: one a float64 holds exactly and
// encoding/json writes back the same.
func plainInteger(val []byte) bool {
	digits := val
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
		if len(digits) > 0 && digits[0] == '0' {
			return false
		}
	}
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for _, b := range digits {
		if b < '0' || b > '9' {
			return false
		}
	}
	return true
}

// maxDepth is the nesting the go-sdk reads a message to: deeper, it refuses
// the message.
const maxDepth = 1000

// withinDepth reports whether the valid JSON data nests at most maxDepth
// deep. Data with fewer brackets than that, the usual case, is not scanned.
func withinDepth(data []byte) bool {
	if bytes.Count(data, []byte("{"))+bytes.Count(data, []byte("[")) <= maxDepth {
		return true
	}
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = wire.SkipString(data, i) - 1
		case '{', '[':
			if depth++; depth > maxDepth {
				return false
			}
		case '}', ']':
			depth--
		}
	}
	return true
}
