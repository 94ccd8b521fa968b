package genfacts

import (
	"reflect"
	"runtime"
	"testing"
)

type res struct{}

func (r *res) Ptr() {}
func (r res) Val()  {}

type box[T any] struct{}

func (b *box[T]) Get() {}

func plain() {}

const self = "github.com/mcpdoor/mcpdoor/internal/genfacts"

// TestFuncName: the names FuncName makes are the runtime's, for a
// function, methods of both receivers, and a generic type's method.
func TestFuncName(t *testing.T) {
	for _, c := range []struct {
		f    any
		want string
	}{
		{plain, FuncName(self, "", false, false, "plain")},
		{(*res).Ptr, FuncName(self, "res", true, false, "Ptr")},
		{res.Val, FuncName(self, "res", false, false, "Val")},
		{(*box[int]).Get, FuncName(self, "box", true, true, "Get")},
	} {
		if got := runtime.FuncForPC(reflect.ValueOf(c.f).Pointer()).Name(); got != c.want {
			t.Errorf("the runtime names it %q, FuncName %q", got, c.want)
		}
	}
}

// TestPathPrefix: a dot in the last element of an import path is escaped,
// as the linker does (the blog fixture's legacy.v1 package checks it
// against a real build).
func TestPathPrefix(t *testing.T) {
	for in, want := range map[string]string{
		"example.com/app/api":       "example.com/app/api",
		"example.com/app/legacy.v1": "example.com/app/legacy%2ev1",
		"gopkg.in/yaml.v3":          "gopkg.in/yaml%2ev3",
		"main":                      "main",
	} {
		if got := PathPrefix(in); got != want {
			t.Errorf("PathPrefix(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEncodeDecode: a file Encode writes, Decode reads back; another
// version is refused, saying which.
func TestEncodeDecode(t *testing.T) {
	out := 0
	f := &File{Version: Version, Package: "p", Handlers: []Handler{{Func: "p.F", At: "f.go:3", Doc: "F does.", Output: &out}, {At: "f.go:9"}}}
	got, err := Decode(Encode(f))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, f) {
		t.Errorf("Decode(Encode(f)) = %+v, want %+v", got, f)
	}
	if _, err := Decode(`{"v":2,"package":"p","handlers":[]}`); err == nil || err.Error() != "written in format 2, this version of mcpdoor reads 1" {
		t.Errorf("Decode of format 2: %v", err)
	}
}
