package canonical

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestAppend(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"b": 1, "a": [true, null, "x"]}`, `{"a":[true,null,"x"],"b":1}`},
		{` {"city" : "Paris" , "days":2.0} `, `{"city":"Paris","days":2}`},
		{`[1.0, 1e0, 10, 1e21, 1e-7, 0.000001, -0, 123456789012345678901, 0.1, 1.5e300]`,
			`[1,1,10,1e+21,1e-7,0.000001,0,123456789012345680000,0.1,1.5e+300]`},
		{`"\u00e9\u0001\/\"\\\n\t\u2028"`, "\"\u00e9\\u0001/\\\"\\\\\\n\\t\u2028\""},
		// Sorted by UTF-16 code units: U+E000 comes after the surrogate pair of U+1F600.
		{`{"\ue000":1,"\ud83d\ude00":2,"a":3}`, "{\"a\":3,\"\U0001F600\":2,\"\ue000\":1}"},
		{`{}`, `{}`},
		{`[]`, `[]`},
	} {
		got, err := Append(nil, []byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("Append(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
}

func TestAppendInvalid(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":1,"a":2}`, `1e400`, `[1] [2]`, `{"a" 1}`} {
		if got, err := Append([]byte("x"), []byte(in)); !errors.Is(err, ErrInvalid) || string(got) != "x" {
			t.Errorf("Append(%q) = %q, %v; want x and ErrInvalid", in, got, err)
		}
	}
}

// FuzzCanonical checks that the canonical form of a valid text is valid
// JSON of the same value, and its own canonical form.
func FuzzCanonical(f *testing.F) {
	f.Add([]byte(`{"b":[1,2.50,"\u0000"],"a":{"y":null,"x":true}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Append(nil, data)
		if err != nil {
			if json.Valid(data) && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error not wrapping ErrInvalid: %v", err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("canonical form %q of %q is not JSON", out, data)
		}
		again, err := Append(nil, out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("not idempotent: %q then %q, %v", out, again, err)
		}
		var a, b any
		if json.Unmarshal(data, &a) != nil || json.Unmarshal(out, &b) != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("%q and its canonical form %q differ", data, out)
		}
	})
}
