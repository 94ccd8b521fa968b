package autoexpose

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
	"github.com/mcpdoor/mcpdoor/internal/wire"
)

// input is a call's arguments as its route's request: the body, and for a
// REST tool, the request its arguments fill in.
type input struct {
	body []byte         // nil: no body (a REST route that takes none)
	call *dispatch.Call // a REST tool's request: its method and URI; nil for a tool route
}

// restInput takes a REST tool's arguments apart (see rest.go): the path
// parameters go into the request URI through the route's template, the
// query parameters after it, and the other members are the JSON body. A
// body is the arguments as they came when no member is taken out of them,
// and otherwise the members left, each as the client wrote it, in a new
// object. It returns the isError result of a path parameter's value that
// the route cannot be sent (see dispatch.Template): the route is then not
// called.
func (t *tool) restInput(args []byte) (input, *mcp.CallToolResult) {
	r := t.rest
	if !r.split {
		return input{body: args, call: &dispatch.Call{Method: r.method, Path: t.path}}, nil
	}
	var values map[string]string
	if len(r.params) > 0 {
		values = pathValues.Get().(map[string]string)
		defer func() {
			clear(values)
			pathValues.Put(values)
		}()
	}
	query, body, removed, ok := r.takeApart(args, values)
	if !ok { // the arguments were validated as an object: not reached
		const msg = "the arguments are not a JSON object"
		return input{}, t.fail(fmt.Sprintf("HTTP 422 from %s: Invalid arguments for %s (the route was not called): %s", t.request, t.Name, msg),
			errorInfo{Code: codeInvalidArguments, Message: msg, Status: http.StatusUnprocessableEntity, Effect: effectNotApplied})
	}
	in := input{call: &dispatch.Call{Method: r.method, Path: t.path}}
	if res := t.restURI(in.call, values, query); res != nil {
		return input{}, res
	}
	switch {
	case !r.body:
	case r.bodyArg != "":
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
func (r *restTool) takeApart(args []byte, values map[string]string) (query url.Values, body []byte, removed, ok bool) {
	kept := 0
	ok = wire.Members(args, func(rawKey, value []byte) bool {
		key, ok := r.member(rawKey)
		switch {
		case ok && key.path:
			if s, ok := valueText(value); ok {
				values[key.name] = s
			} else {
				delete(values, key.name)
			}
		case ok || !r.body:
			if query == nil {
				query = make(url.Values)
			}
			name := key.name
			if !ok {
				name = wire.Unquote(rawKey)
			}
			query.Del(name)
			addQuery(query, name, value)
		case r.bodyArg != "":
			if wire.Unquote(rawKey) == r.bodyArg {
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
func (t *tool) restURI(call *dispatch.Call, values map[string]string, query url.Values) *mcp.CallToolResult {
	r := t.rest
	switch {
	case r.template != nil && t.Verdict == detect.Direct:
		// Direct dispatch takes the route context Fill's routing found.
		if err := r.template.Fill(call, values, query); err != nil {
			return t.pathRefused(err)
		}
	case r.template != nil:
		uri, err := r.template.Expand(values, query)
		if err != nil {
			return t.pathRefused(err)
		}
		call.Path = uri
	case len(query) > 0:
		call.Path = t.path + "?" + query.Encode()
	}
	return nil
}

// pathRefused is the isError result of path parameters the route's
// template refuses (a *dispatch.ParamError says which).
func (t *tool) pathRefused(err error) *mcp.CallToolResult {
	info := errorInfo{Code: codeInvalidArguments, Message: err.Error(), Status: http.StatusUnprocessableEntity, Effect: effectNotApplied}
	var pe *dispatch.ParamError
	if errors.As(err, &pe) {
		info.Fields = []string{pe.Param}
	}
	return t.fail(fmt.Sprintf("HTTP 422 from %s: Invalid arguments for %s (the route was not called): %s", t.request, t.Name, err), info)
}

// restMember is a member of a REST tool's arguments that is a path or a
// query parameter.
type restMember struct {
	name string
	path bool // a path parameter; else a query parameter
}

// member returns what the member whose key is rawKey (a JSON string, as
// written) is, when it is a path or query parameter.
func (r *restTool) member(rawKey []byte) (restMember, bool) {
	k := rawKey[1 : len(rawKey)-1]
	if bytes.IndexByte(k, '\\') >= 0 {
		k = []byte(wire.Unquote(rawKey))
	}
	for _, p := range r.params {
		if string(k) == p {
			return restMember{p, true}, true
		}
	}
	for _, q := range r.query {
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
func (t *tool) restResult(resp *dispatch.Response) *mcp.CallToolResult {
	loc := resp.Header.Get("Location")
	if len(resp.Body) > 0 {
		plain := *resp
		plain.Header = resp.Header.Clone()
		plain.Header.Del("Location")
		res := t.result(&plain)
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
