package typeschema

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// code decodes itself from any JSON value.
type code struct{ raw string }

func (c *code) UnmarshalJSON(b []byte) error { c.raw = string(b); return nil }
func (c code) MarshalJSON() ([]byte, error)  { return []byte(`"` + c.raw + `"`), nil }

// id decodes itself from a string.
type id [4]byte

func (i *id) UnmarshalText(b []byte) error { return nil }
func (i id) MarshalText() ([]byte, error)  { return []byte("x"), nil }

type Base struct {
	Kind string `json:"kind"`
}

type Owner struct {
	Name string `json:"name"`
}

type body struct {
	Base                 // untagged: its fields are the object's
	Owner `json:"owner"` // tagged: one member of its own
	Count int            `json:"count,string"`
	Tags  []string       `json:"tags"`
	Attrs map[string]int `json:"attrs"`
	At    time.Time      `json:"at"`
	Code  code           `json:"code"`
	ID    id             `json:"id"`
	Next  *Owner         `json:"next,omitempty"`
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m any
	json.Unmarshal(b, &m)
	b, _ = json.Marshal(m) // keys sorted
	return string(b)
}

// TestDecoded pins the schema of what encoding/json decodes: nothing
// required, null admitted below the root, other members admitted unless
// strict, codecs and ",string" as their JSON, a tagged embedded struct as
// a member.
func TestDecoded(t *testing.T) {
	const props = `"at":{"type":["null","string"]},"attrs":{"additionalProperties":{"type":["null","integer"]},"type":["null","object"]},` +
		`"code":true,"count":{"type":["null","string"]},"id":{"type":["null","string"]},"kind":{"type":["null","string"]},` +
		`"next":{"properties":{"name":{"type":["null","string"]}},"type":["null","object"]},` +
		`"owner":{"properties":{"name":{"type":["null","string"]}},"type":["null","object"]},` +
		`"tags":{"items":{"type":["null","string"]},"type":["null","array"]}`
	s, err := Decoded(reflect.TypeFor[body](), false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := marshal(t, s), `{"properties":{`+props+`},"type":"object"}`; got != want {
		t.Errorf("Decoded\n  %s\nwant\n  %s", got, want)
	}
	s, err = Decoded(reflect.TypeFor[body](), true)
	if err != nil {
		t.Fatal(err)
	}
	got := marshal(t, s)
	if !strings.HasPrefix(got, `{"additionalProperties":false,`) || !strings.Contains(got, `"owner":{"additionalProperties":false,`) {
		t.Errorf("Decoded strict does not refuse other members at every depth:\n  %s", got)
	}
}

// TestEncoded pins the schema of what encoding/json writes: nothing
// required, other members admitted, null where a nil map or pointer
// writes it, a root pointer followed.
func TestEncoded(t *testing.T) {
	s, err := Encoded(reflect.TypeFor[*body]())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"properties":{"at":{"type":"string"},"attrs":{"additionalProperties":{"type":"integer"},"type":["null","object"]},"code":true,` +
		`"count":{"type":"string"},"id":{"type":"string"},"kind":{"type":"string"},"next":{"properties":{"name":{"type":"string"}},"type":["null","object"]},` +
		`"owner":{"properties":{"name":{"type":"string"}},"type":"object"},"tags":{"items":{"type":"string"},"type":["null","array"]}},"type":"object"}`
	if got := marshal(t, s); got != want {
		t.Errorf("Encoded\n  %s\nwant\n  %s", got, want)
	}
}

type node struct {
	Children []node `json:"children"`
}

// TestDecodedCycle: a type that holds itself has no schema; the error is
// For's.
func TestDecodedCycle(t *testing.T) {
	if _, err := Decoded(reflect.TypeFor[node](), false); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("Decoded of a recursive type: %v, want For's cycle error", err)
	}
}
