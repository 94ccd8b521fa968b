package autoexpose

import (
	"encoding/json"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpdoor/mcpdoor/internal/argcheck"
)

// TestArgumentError: what a tool call's bad arguments are answered with
// names the field and says what is wrong, in words a model can act on.
func TestArgumentError(t *testing.T) {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{
		"n": {"type":"integer","minimum":1,"maximum":20},
		"price": {"type":"number","exclusiveMinimum":0,"exclusiveMaximum":100.5,"multipleOf":0.5},
		"note": {"type":["string","null"]},
		"tags": {"type":"array","items":{"type":"string"}}
	}}`), &s); err != nil {
		t.Fatal(err)
	}
	rs, err := argcheck.Compile(&s)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ args, want string }{
		{`{"n":0}`, `{"error":"invalid arguments","fields":["n"],"detail":"n: 0 is less than the minimum, 1"}`},
		{`{"n":50}`, `{"error":"invalid arguments","fields":["n"],"detail":"n: 50 is greater than the maximum, 20"}`},
		{`{"n":1.5}`, `{"error":"invalid arguments","fields":["n"],"detail":"n: want integer, got number"}`},
		{`{"price":0}`, `{"error":"invalid arguments","fields":["price"],"detail":"price: 0 is not greater than 0"}`},
		{`{"price":100.5}`, `{"error":"invalid arguments","fields":["price"],"detail":"price: 100.5 is not less than 100.5"}`},
		{`{"price":0.75}`, `{"error":"invalid arguments","fields":["price"],"detail":"price: 0.75 is not a multiple of 0.5"}`},
		{`{"note":5}`, `{"error":"invalid arguments","fields":["note"],"detail":"note: want string or null, got integer"}`},
		{`{"tags":[1]}`, `{"error":"invalid arguments","fields":["tags[]"],"detail":"tags[]: want string, got integer"}`},
	}
	for _, c := range cases {
		t.Run(c.args, func(t *testing.T) {
			ae := rs.Validate([]byte(c.args))
			if ae == nil {
				t.Fatalf("%s passed", c.args)
			}
			if got := string(ae.Body()); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestArgumentErrorStructured: the fields and the detail come from where
// the arguments fail, whatever the schema's shape: a field behind a $ref
// keeps its full path, a field name may hold any character, a map's value
// is named by its key, and every keyword is said in words.
func TestArgumentErrorStructured(t *testing.T) {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{
		"home": {"$ref":"#/$defs/address"},
		"time: zone": {"type":"string"},
		"color": {"enum":["red","green"]},
		"scores": {"type":"object","additionalProperties":{"type":"integer"}},
		"code": {"type":"string","minLength":3}
	},"$defs":{"address":{"type":"object","properties":{"zip":{"type":"string"}},"required":["zip"]}}}`), &s); err != nil {
		t.Fatal(err)
	}
	rs, err := argcheck.Compile(&s)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ args, want string }{
		{`{"home":{"zip":5}}`, `{"error":"invalid arguments","fields":["home.zip"],"detail":"home.zip: want string, got integer"}`},
		{`{"home":{}}`, `{"error":"invalid arguments","fields":["home.zip"],"detail":"missing required field home.zip"}`},
		{`{"time: zone":5}`, `{"error":"invalid arguments","fields":["time: zone"],"detail":"time: zone: want string, got integer"}`},
		{`{"color":"blue"}`, `{"error":"invalid arguments","fields":["color"],"detail":"color: want one of \"red\", \"green\", got \"blue\""}`},
		{`{"scores":{"ada":1.5}}`, `{"error":"invalid arguments","fields":["scores.ada"],"detail":"scores.ada: want integer, got number"}`},
		{`{"code":"ab"}`, `{"error":"invalid arguments","fields":["code"],"detail":"code: 2 characters, fewer than the minimum, 3"}`},
	}
	for _, c := range cases {
		t.Run(c.args, func(t *testing.T) {
			ae := rs.Validate([]byte(c.args))
			if ae == nil {
				t.Fatalf("%s passed", c.args)
			}
			if got := string(ae.Body()); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestInstallSchemaErrors: Install refuses a tool whose input schema cannot
// validate arguments, naming the route, the tool and the reason.
func TestInstallSchemaErrors(t *testing.T) {
	cases := []struct{ name, schema, want string }{
		{"bad pattern", `{"type":"object","properties":{"s":{"type":"string","pattern":"(?!x)"}}}`,
			"mcpdoor: POST /note: tool note: input schema: jsonschema.Schema: <anonymous schema>: pattern: error parsing regexp: invalid or unsupported Perl syntax: `(?!`"},
		{"default breaks its schema", `{"type":"object","properties":{"n":{"type":"integer","default":"one"}}}`,
			`mcpdoor: POST /note: tool note: input schema: a default value breaks its own schema: validating /properties/n: type: one has type "string", want "integer"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s jsonschema.Schema
			if err := json.Unmarshal([]byte(c.schema), &s); err != nil {
				t.Fatal(err)
			}
			cfg := enabled(MCPConfig{})
			cfg.Declared = map[string]Declaration{"note": {Input: &s}}
			_, err := Install(rolloutRouter(func(r chi.Router) { r.Post("/note", ok) }), cfg)
			if err == nil || err.Error() != c.want {
				t.Errorf("Install: %v\nwant %s", err, c.want)
			}
		})
	}
}
