// Package exposed tells package verifywrap, through a /verify request's
// context, which tools the door in front of it exposes, so that /verify
// can normalize the mcp_<server>_<tool> form some agents emit where that
// form is unambiguous. verifywrap's own API has no place for the tool set:
// a verifier wrapped by hand knows only the server's name.
package exposed

import "context"

type key struct{}

// With returns ctx carrying is, which reports whether a name is one of the
// door's tools.
func With(ctx context.Context, is func(name string) bool) context.Context {
	return context.WithValue(ctx, key{}, is)
}

// From returns what With put in ctx, or nil.
func From(ctx context.Context) func(name string) bool {
	is, _ := ctx.Value(key{}).(func(string) bool)
	return is
}
