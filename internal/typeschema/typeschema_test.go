package typeschema

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

type leaf struct {
	Labels []string `json:"labels"`
}

type Embedded struct {
	Promoted []int `json:"promoted"`
}

type tags []string

type shapes struct {
	Slice       []string            `json:"slice"`
	Optional    []string            `json:"optional,omitempty"`
	Zero        []string            `json:"zero,omitzero"`
	Pointer     *[]string           `json:"pointer"`
	PointerOmit *[]string           `json:"pointer_omit,omitempty"`
	Nested      [][]int             `json:"nested"`
	Structs     []leaf              `json:"structs"`
	StructPtrs  []*leaf             `json:"struct_ptrs"`
	PtrItems    []*[]string         `json:"ptr_items"`
	Leaf        leaf                `json:"leaf"`
	LeafPtr     *leaf               `json:"leaf_ptr"`
	Map         map[string]int      `json:"map"`
	MapPtr      *map[string]int     `json:"map_ptr"`
	MapOfSlices map[string][]string `json:"map_of_slices"`
	MapOfLeaves map[string]leaf     `json:"map_of_leaves"`
	Array       [2][]string         `json:"array"`
	Named       tags                `json:"named"`
	Untagged    []string
	Time        time.Time `json:"time"`
	Skipped     []string  `json:"-"`
	Embedded
}

// TestSchemas pins the exact schema of each shape, for input and output.
func TestSchemas(t *testing.T) {
	const (
		arr     = `{"type":"array","items":{"type":"string"}}`
		nullArr = `{"type":["null","array"],"items":{"type":"string"}}`
	)
	leafIn := `{"type":"object","properties":{"labels":` + arr + `},"required":["labels"],"additionalProperties":false}`
	leafOut := `{"type":"object","properties":{"labels":` + nullArr + `},"required":["labels"],"additionalProperties":false}`
	nullable := func(object string) string {
		return `{"type":["null","object"],` + strings.TrimPrefix(object, `{"type":"object",`)
	}
	properties := func(in bool) string {
		pick := func(input, output string) string {
			if in {
				return input
			}
			return output
		}
		leaf := pick(leafIn, leafOut)
		return `"slice":` + pick(arr, nullArr) +
			`,"optional":` + arr +
			`,"zero":` + arr +
			`,"pointer":` + nullArr +
			`,"pointer_omit":` + nullArr +
			`,"nested":` + pick(`{"type":"array","items":{"type":"array","items":{"type":"integer"}}}`,
			`{"type":["null","array"],"items":{"type":["null","array"],"items":{"type":"integer"}}}`) +
			`,"structs":{"type":` + pick(`"array"`, `["null","array"]`) + `,"items":` + leaf + `}` +
			`,"struct_ptrs":{"type":` + pick(`"array"`, `["null","array"]`) + `,"items":` + nullable(leaf) + `}` +
			`,"ptr_items":{"type":` + pick(`"array"`, `["null","array"]`) + `,"items":` + nullArr + `}` +
			`,"leaf":` + leaf +
			`,"leaf_ptr":` + nullable(leaf) +
			`,"map":{"type":"object","additionalProperties":{"type":"integer"}}` +
			`,"map_ptr":{"type":["null","object"],"additionalProperties":{"type":"integer"}}` +
			`,"map_of_slices":{"type":"object","additionalProperties":` + pick(arr, nullArr) + `}` +
			`,"map_of_leaves":{"type":"object","additionalProperties":` + leaf + `}` +
			`,"array":{"type":"array","items":` + pick(arr, nullArr) + `,"minItems":2,"maxItems":2}` +
			`,"named":` + pick(arr, nullArr) +
			`,"Untagged":` + pick(arr, nullArr) +
			`,"time":{"type":"string"}` +
			`,"promoted":{"type":` + pick(`"array"`, `["null","array"]`) + `,"items":{"type":"integer"}}`
	}
	required := `"required":["slice","pointer","nested","structs","struct_ptrs","ptr_items","leaf","leaf_ptr","map","map_ptr","map_of_slices","map_of_leaves","array","named","Untagged","time","promoted"]`
	for _, c := range []struct {
		name string
		fn   func() (*jsonschema.Schema, error)
		want string
	}{
		{"input", Input[shapes], `{"type":"object","properties":{` + properties(true) + `},` + required + `,"additionalProperties":false}`},
		{"output", Output[shapes], `{"type":"object","properties":{` + properties(false) + `},` + required + `,"additionalProperties":false}`},
		{"input, a top-level slice", Input[[]leaf], `{"type":"array","items":` + leafIn + `}`},
		{"output, a top-level slice", Output[[]leaf], `{"type":["null","array"],"items":` + leafOut + `}`},
		{"input, a top-level pointer to a slice", Input[*[]string], nullArr},
		{"input, a top-level map", Input[map[string][]leaf], `{"type":"object","additionalProperties":{"type":"array","items":` + leafIn + `}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := c.fn()
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != c.want {
				t.Errorf("got\n  %s\nwant\n  %s", b, c.want)
			}
		})
	}
}

// TestDuplicateName: when two fields share a JSON name, the correction
// follows the type of the field whose schema For kept: the last of one
// struct's fields, or the shallower of an outer and an embedded one.
func TestDuplicateName(t *testing.T) {
	type inner struct {
		X *[]string `json:"x"`
	}
	type outer struct {
		X []string `json:"x"`
		inner
	}
	type deep struct {
		A []string `json:"x"`
	}
	type last struct {
		deep
		B *[]string `json:"x"`
	}
	for _, c := range []struct {
		name string
		fn   func() (*jsonschema.Schema, error)
		want string
	}{
		{"an outer field named like an embedded one", Input[last], `{"type":["null","array"],"items":{"type":"string"}}`},
		{"an outer field over an embedded one of its name", Input[outer], `{"type":"array","items":{"type":"string"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := c.fn()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(s.Properties["x"])
			if string(b) != c.want {
				t.Errorf("x: %s, want %s", b, c.want)
			}
		})
	}
}

// TestErrors: a type For cannot describe fails with For's own error.
func TestErrors(t *testing.T) {
	type bad struct {
		C chan int `json:"c"`
	}
	_, want := jsonschema.For[bad](nil)
	if want == nil {
		t.Fatal("For accepted a channel: this test shows nothing")
	}
	for name, fn := range map[string]func() (*jsonschema.Schema, error){"Input": Input[bad], "Output": Output[bad]} {
		if s, err := fn(); s != nil || err == nil || err.Error() != want.Error() {
			t.Errorf("%s = %v, %v; want nil, %v", name, s, err, want)
		}
	}
}
