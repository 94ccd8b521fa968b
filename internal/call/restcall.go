package call

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/detect"
	"github.com/mcpdoor/mcpdoor/internal/dispatch"
	"github.com/mcpdoor/mcpdoor/internal/harvest"
	"github.com/mcpdoor/mcpdoor/internal/toolset"
	"github.com/mcpdoor/mcpdoor/internal/wire"
)

// input is a call's arguments as its route's request: the body, and for a
// REST tool, the request its arguments fill in.
type input struct {
	body []byte         // nil: no body (a REST route that takes none)
	call *dispatch.Call // a REST tool's request: its method and URI; nil for a tool route
}

// restInput takes a REST tool's arguments apart (see internal/harvest's
// rest.go): the path parameters go into the request URI through the
// route's template, the query parameters after it, and the other members
// are the JSON body. A
// body is the arguments as they came when no member is taken out of them,
// and otherwise the members left, each as the client wrote it, in a new
// object. It returns the isError result of a path parameter's value that
// the route cannot be sent (see dispatch.Template): the route is then not
// called.
func restInput(t *toolset.Tool, args []byte) (input, *mcp.CallToolResult) {
	r := t.REST
	if !r.Split {
		return input{body: args, call: &dispatch.Call{Method: r.Method, Path: t.Path}}, nil
	}
	var values map[string]string
	if len(r.Params) > 0 {
		values = pathValues.Get().(map[string]string)
		defer func() {
			clear(values)
			pathValues.Put(values)
		}()
	}
	query, body, removed, ok := takeApart(r, args, values)
	if !ok { // the arguments were validated as an object: not reached
		const msg = "the arguments are not a JSON object"
		return input{}, t.Fail(fmt.Sprintf("HTTP 422 from %s: Invalid arguments for %s (the route was not called): %s", t.Request, t.Name, msg),
			toolset.ErrorInfo{Code: toolset.CodeInvalidArguments, Message: msg, Status: http.StatusUnprocessableEntity, Effect: toolset.EffectNotApplied})
	}
	in := input{call: &dispatch.Call{Method: r.Method, Path: t.Path}}
	if res := restURI(t, in.call, values, query); res != nil {
		return input{}, res
	}
	switch {
	case !r.Body:
	case r.BodyArg != "":
		in.body = body
	case !removed:
		in.body = args
	case body == nil:
		in.body = []byte("{}")
	default:
		in.body = append(body, '}')
	}
	return in, nil
}

// takeApart sorts the members of the arguments args: the path parameters'
// values into values, the query parameters' into query, and the others
// into body, an object left open (or, for a body argument, its value).
// removed reports whether a member was taken out of the body; ok is false
// when args is no JSON object.
func takeApart(r *harvest.REST, args []byte, values map[string]string) (query url.Values, body []byte, removed, ok bool) {
	kept := 0
	ok = wire.Members(args, func(rawKey, value []byte) bool {
		key, ok := memberOf(r, rawKey)
		switch {
		case ok && key.path:
			if s, ok := valueText(value); ok {
				values[key.name] = s
			} else {
				delete(values, key.name)
			}
		case ok || !r.Body:
			if query == nil {
				query = make(url.Values)
			}
			name := key.name
			if !ok {
				name = wire.Unquote(rawKey)
			}
			query.Del(name)
			addQuery(query, name, value)
		case r.BodyArg != "":
			if wire.Unquote(rawKey) == r.BodyArg {
				body = value
			}
			return true
		default:
			if body == nil {
				body = make([]byte, 1, len(args))
				body[0] = '{'
			}
			if kept > 0 {
				body = append(body, ',')
			}
			kept++
			body = append(append(append(body, rawKey...), ':'), value...)
			return true
		}
		removed = true
		return true
	})

	return query, body, removed, ok
}

// restURI sets the request URI of call: the route's template filled with
// the path parameters' values and then the query, or the query after the
// tool's path. It returns the isError result of values the template
// refuses.
func restURI(t *toolset.Tool, call *dispatch.Call, values map[string]string, query url.Values) *mcp.CallToolResult {
	r := t.REST
	switch {
	case r.Template != nil && t.Verdict == detect.Direct:
		// Direct dispatch takes the route context Fill's routing found.
		if err := r.Template.Fill(call, values, query); err != nil {
			return pathRefused(t, err)
		}
	case r.Template != nil:
		uri, err := r.Template.Expand(values, query)
		if err != nil {
			return pathRefused(t, err)
		}
		call.Path = uri
	case len(query) > 0:
		call.Path = t.Path + "?" + query.Encode()
	}
	return nil
}

// pathRefused is the isError result of path parameters the route's
// template refuses (a *dispatch.ParamError says which).
func pathRefused(t *toolset.Tool, err error) *mcp.CallToolResult {
	info := toolset.ErrorInfo{Code: toolset.CodeInvalidArguments, Message: err.Error(), Status: http.StatusUnprocessableEntity, Effect: toolset.EffectNotApplied}
	var pe *dispatch.ParamError
	if errors.As(err, &pe) {
		info.Fields = []string{pe.Param}
	}
	return t.Fail(fmt.Sprintf("HTTP 422 from %s: Invalid arguments for %s (the route was not called): %s", t.Request, t.Name, err), info)
}

// restMember is a member of a REST tool's arguments that is a path or a
// query parameter.
type restMember struct {
	name string
	path bool // a path parameter; else a query parameter
}

// memberOf returns what the member whose key is rawKey (a JSON string, as
// written) is, when it is a path or query parameter.
func memberOf(r *harvest.REST, rawKey []byte) (restMember, bool) {
	k := rawKey[1 : len(rawKey)-1]
	if bytes.IndexByte(k, '\\') >= 0 {
		k = []byte(wire.Unquote(rawKey))
	}
	for _, p := range r.Params {
		if string(k) == p {
			return restMember{p, true}, true
		}
	}
	for _, q := range r.Query {
		if string(k) == q {
			return restMember{q, false}, true
		}
	}
	return restMember{}, false
}

// pathValues recycles the maps of path values that restInput fills and the
// template reads, one a call.
var pathValues = sync.Pool{New: func() any { return make(map[string]string, 4) }}

// valueText is a JSON value as a path or query parameter's text: a
// string's text, a number or boolean as written, another value's JSON. A
// null is no value.
func valueText(v []byte) (string, bool) {
	switch v[0] {
	case 'n':
		return "", false
	case '"':
		return wire.Unquote(v), true
	}
	return string(v), true
}

// addQuery adds the member key: value to query: an array as the key
// repeated, one per item (as a form sends a list), any other value as its
// text (see valueText).
func addQuery(query url.Values, key string, v []byte) {
	if v[0] != '[' {
		if s, ok := valueText(v); ok {
			query.Add(key, s)
		}
		return
	}
	i := wire.SkipSpace(v, 1)
	for i < len(v) && v[i] != ']' {
		end := wire.SkipValue(v, i)
		if end < 0 {
			return
		}
		if s, ok := valueText(v[i:end]); ok {
			query.Add(key, s)
		}
		i = wire.SkipSpace(v, end)
		if i < len(v) && v[i] == ',' {
			i = wire.SkipSpace(v, i+1)
		}
	}
}

// restResult is the result of a REST route's 2xx response that has no body
// or a Location header, which the usual mapping would lose: with no body,
// the text "204 No Content" ("201 Created; Location: /notes/7", with a
// Location) and, for a tool without an output schema, the structured
// content {"status": 204} ({"status": 201, "location": "/notes/7"}); with
// a body, the body's result and a last text block "Location: /notes/7".
func restResult(t *toolset.Tool, resp *dispatch.Response) *mcp.CallToolResult {
	loc := resp.Header.Get("Location")
	if len(resp.Body) > 0 {
		plain := *resp
		plain.Header = resp.Header.Clone()
		plain.Header.Del("Location")
		res := Result(t, &plain)
		res.Content = append(res.Content, &mcp.TextContent{Text: "Location: " + loc})
		return res
	}
	text := fmt.Sprintf("%d %s", resp.Status, http.StatusText(resp.Status))
	status := struct {
		Status   int    `json:"status"`
		Location string `json:"location,omitempty"`
	}{resp.Status, loc}
	if loc != "" {
		text += "; Location: " + loc
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.TrimSpace(text)}}}
	if t.OutputSchema == nil {
		res.StructuredContent = status
	}
	return res
}
