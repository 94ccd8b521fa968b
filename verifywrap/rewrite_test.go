package verifywrap

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpdoor/mcpdoor/internal/exposed"
)

// sameBytes reports whether a and b are the same slice, not just equal.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func TestRewriteRequest(t *testing.T) {
	tests := []struct {
		name      string
		anyServer bool // rewrite for the empty server instead of "weather"
		in        string
		want      string // "" means unchanged
		emitted   emittedNames
	}{
		{
			name:    "rename",
			in:      `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__get_weather","arguments":"{\"city\":\"Paris\"}"}]}}`,
			want:    `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}]}}`,
			emitted: emittedNames{"c1": {`"mcp__weather__get_weather"`}},
		},
		{
			name: "other server kept",
			in:   `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__other__get_weather"}]}}`,
		},
		{
			name: "bare kept",
			in:   `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"get_weather"}]}}`,
		},
		{
			name:    "mixed names",
			in:      `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"get_weather"},{"type":"function_call","call_id":"c2","name":"mcp__other__x"},{"type":"function_call","call_id":"c3","name":"mcp__weather__y"}]}}`,
			want:    `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"get_weather"},{"type":"function_call","call_id":"c2","name":"mcp__other__x"},{"type":"function_call","call_id":"c3","name":"y"}]}}`,
			emitted: emittedNames{"c3": {`"mcp__weather__y"`}},
		},
		{
			name:    "duplicate call_ids recorded in order",
			in:      `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"a"},{"type":"function_call","call_id":"c1","name":"mcp__weather__b"},{"type":"function_call","call_id":"c2","name":"d"},{"type":"function_call","call_id":"c1","name":"mcp__weather__c"}]}}`,
			want:    `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"a"},{"type":"function_call","call_id":"c1","name":"b"},{"type":"function_call","call_id":"c2","name":"d"},{"type":"function_call","call_id":"c1","name":"c"}]}}`,
			emitted: emittedNames{"c1": {`"a"`, `"mcp__weather__b"`, `"mcp__weather__c"`}},
		},
		{
			name:    "provenance wins",
			in:      `{"mcp_tool_call_provenance":{"c1":{"server_name":"weather","tool_name":"forecast"}},"response":{"output":[{"type":"function_call","call_id":"c1","name":"weather_forecast"}]}}`,
			want:    `{"mcp_tool_call_provenance":{"c1":{"server_name":"weather","tool_name":"forecast"}},"response":{"output":[{"type":"function_call","call_id":"c1","name":"forecast"}]}}`,
			emitted: emittedNames{"c1": {`"weather_forecast"`}},
		},
		{
			name: "provenance for another server keeps the name",
			in:   `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__x"}]},"mcp_tool_call_provenance":{"c1":{"server_name":"maps","tool_name":"x"}}}`,
		},
		{
			// A sidecar that is there is authoritative and complete, as in
			// NeMo Gym: a malformed entry names no call of the server's, and
			// no name is guessed from its string.
			name: "malformed provenance entries rename nothing",
			in:   `{"mcp_tool_call_provenance":{"c1":"weather","c2":{"server_name":7,"tool_name":"x"},"c3":{"server_name":"weather"},"c4":{"server_name":"weather","tool_name":""}},"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__a"},{"type":"function_call","call_id":"c2","name":"mcp__weather__b"},{"type":"function_call","call_id":"c3","name":"mcp__weather__c"},{"type":"function_call","call_id":"c4","name":"mcp__weather__d"}]}}`,
			want: "", // unchanged
		},
		{
			name:    "provenance that is not an object is ignored",
			in:      `{"mcp_tool_call_provenance":["c1"],"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__a"}]}}`,
			want:    `{"mcp_tool_call_provenance":["c1"],"response":{"output":[{"type":"function_call","call_id":"c1","name":"a"}]}}`,
			emitted: emittedNames{"c1": {`"mcp__weather__a"`}},
		},
		{
			name: "provenance does not cover items without call_id",
			in:   `{"mcp_tool_call_provenance":{"":{"server_name":"weather","tool_name":"z"}},"response":{"output":[{"type":"function_call","name":"mcp__weather__a"}]}}`,
			want: "", // unchanged
		},
		{
			// Gym's #2673: an empty sidecar is authoritative too.
			name: "an empty provenance keeps every name",
			in:   `{"mcp_tool_call_provenance":{},"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__a"}]}}`,
			want: "", // unchanged
		},
		{
			// A call_id two items share identifies no one call: neither is renamed.
			name: "a duplicate call_id under provenance fails closed",
			in:   `{"mcp_tool_call_provenance":{"c1":{"server_name":"weather","tool_name":"a"}},"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__a"},{"type":"function_call","call_id":"c1","name":"mcp__weather__a"}]}}`,
			want: "", // unchanged
		},
		{
			name:    "null provenance is an older trajectory's",
			in:      `{"mcp_tool_call_provenance":null,"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__a"}]}}`,
			want:    `{"mcp_tool_call_provenance":null,"response":{"output":[{"type":"function_call","call_id":"c1","name":"a"}]}}`,
			emitted: emittedNames{"c1": {`"mcp__weather__a"`}},
		},
		{
			name:    "arguments untouched",
			in:      `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__a","arguments":"{\"name\":\"mcp__x__y\",\"q\":\"mcp__weather__y\"}"},{"type":"function_call","call_id":"c2","arguments":{"name":"mcp__weather__y","type":"function_call"},"name":"mcp__x__y"}]}}`,
			want:    `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"a","arguments":"{\"name\":\"mcp__x__y\",\"q\":\"mcp__weather__y\"}"},{"type":"function_call","call_id":"c2","arguments":{"name":"mcp__weather__y","type":"function_call"},"name":"mcp__x__y"}]}}`,
			emitted: emittedNames{"c1": {`"mcp__weather__a"`}},
		},
		{
			name:    "other item types untouched",
			in:      `{"response":{"output":[{"type":"message","name":"mcp__weather__a","content":[{"type":"function_call","name":"mcp__weather__b"}]},{"type":"function_call_output","call_id":"c1","name":"mcp__weather__c","output":"sunny"},{"name":"mcp__weather__d"},{"type":["function_call"],"name":"mcp__weather__e"},"function_call",{"type":"function_call","call_id":"c2","name":"mcp__weather__f"}]}}`,
			want:    `{"response":{"output":[{"type":"message","name":"mcp__weather__a","content":[{"type":"function_call","name":"mcp__weather__b"}]},{"type":"function_call_output","call_id":"c1","name":"mcp__weather__c","output":"sunny"},{"name":"mcp__weather__d"},{"type":["function_call"],"name":"mcp__weather__e"},"function_call",{"type":"function_call","call_id":"c2","name":"f"}]}}`,
			emitted: emittedNames{"c2": {`"mcp__weather__f"`}},
		},
		{
			name: "function_call without a string name untouched",
			in:   `{"response":{"output":[{"type":"function_call","call_id":"c1","name":null},{"type":"function_call","call_id":"c2"}]}}`,
		},
		{
			name:    "responses_create_params.tools untouched",
			in:      `{"responses_create_params":{"tools":[{"type":"function","name":"mcp__weather__get_weather"}],"input":[{"type":"function_call","call_id":"c0","name":"mcp__weather__get_weather"}]},"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__get_weather"}]}}`,
			want:    `{"responses_create_params":{"tools":[{"type":"function","name":"mcp__weather__get_weather"}],"input":[{"type":"function_call","call_id":"c0","name":"mcp__weather__get_weather"}]},"response":{"output":[{"type":"function_call","call_id":"c1","name":"get_weather"}]}}`,
			emitted: emittedNames{"c1": {`"mcp__weather__get_weather"`}},
		},
		{
			name:    "formatting preserved",
			in:      "{\n  \"reward\" : 1.0,\n\t\"response\": {\"id\": \"r\\u00e9\", \"output\": [ {\n    \"name\" :  \"mcp__weather__get_weather\" ,\n    \"call_id\": \"c1\",\r\n    \"type\": \"function_call\", \"arguments\": \"{\\\"t\\\": 1e-7}\", \"n\": [1.50, -0, 1E+2, 12345678901234567890]\n  } ] },\n  \"note\": \"café \\ud83d\\ude00 <&>\"\n}\n",
			want:    "{\n  \"reward\" : 1.0,\n\t\"response\": {\"id\": \"r\\u00e9\", \"output\": [ {\n    \"name\" :  \"get_weather\" ,\n    \"call_id\": \"c1\",\r\n    \"type\": \"function_call\", \"arguments\": \"{\\\"t\\\": 1e-7}\", \"n\": [1.50, -0, 1E+2, 12345678901234567890]\n  } ] },\n  \"note\": \"café \\ud83d\\ude00 <&>\"\n}\n",
			emitted: emittedNames{"c1": {`"mcp__weather__get_weather"`}},
		},
		{
			name:    "escaped names and keys are decoded, emitted kept verbatim",
			in:      `{"response":{"output":[{"typ\u0065":"function\u005fcall","call_id":"c\u0031","n\u0061me":"mcp__weather__caf\u00e9"}]}}`,
			want:    `{"response":{"output":[{"typ\u0065":"function\u005fcall","call_id":"c\u0031","n\u0061me":"café"}]}}`,
			emitted: emittedNames{"c1": {`"mcp__weather__caf\u00e9"`}},
		},
		{
			name:    "last duplicate key counts",
			in:      `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__a"}]},"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__b","name":"mcp__weather__c"}]}}`,
			want:    `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__a"}]},"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__b","name":"c"}]}}`,
			emitted: emittedNames{"c1": {`"mcp__weather__c"`}},
		},
		{
			name:      "empty server strips any namespace",
			anyServer: true,
			in:        `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__store__ns__tool"},{"type":"function_call","call_id":"c2","name":"mcp__dangling"},{"type":"function_call","call_id":"c3","name":"mcp__x__"}]}}`,
			want:      `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"ns__tool"},{"type":"function_call","call_id":"c2","name":"mcp__dangling"},{"type":"function_call","call_id":"c3","name":"mcp__x__"}]}}`,
			emitted:   emittedNames{"c1": {`"mcp__store__ns__tool"`}},
		},
		{
			name:      "empty server takes any provenance",
			anyServer: true,
			in:        `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__maps__x"}]},"mcp_tool_call_provenance":{"c1":{"server_name":"maps","tool_name":"route"}}}`,
			want:      `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"route"}]},"mcp_tool_call_provenance":{"c1":{"server_name":"maps","tool_name":"route"}}}`,
			emitted:   emittedNames{"c1": {`"mcp__maps__x"`}},
		},
		{name: "not an object", in: `[{"type":"function_call","call_id":"c1","name":"mcp__weather__a"}]`},
		{name: "string", in: `"mcp__weather__a"`},
		{name: "no response", in: `{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__a"}]}`},
		{name: "response not an object", in: `{"response":[{"output":[]}]}`},
		{name: "output not an array", in: `{"response":{"output":{"type":"function_call","call_id":"c1","name":"mcp__weather__a"}}}`},
		{name: "empty output", in: `{"response":{"output":[]}}`},
		{name: "empty object", in: ` {} `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			server := "weather"
			if tt.anyServer {
				server = ""
			}
			in := []byte(tt.in)
			out, emitted, changed, err := rewriteRequest(in, server)
			if err != nil {
				t.Fatalf("rewriteRequest: %v", err)
			}
			if tt.want == "" {
				if changed || !sameBytes(out, in) || emitted != nil {
					t.Fatalf("rewriteRequest = %#q, %v, %v; want the input itself, nil, false", out, emitted, changed)
				}
				return
			}
			if !changed || string(out) != tt.want {
				t.Errorf("rewriteRequest = %v,\n%#q\nwant true,\n%#q", changed, out, tt.want)
			}
			if diff := cmp.Diff(tt.emitted, emitted); diff != "" {
				t.Errorf("emitted (-want +got):\n%s", diff)
			}
			// The echo of the rewritten body comes back as the input.
			back, err := restoreResponse(out, emitted)
			if err != nil || string(back) != tt.in {
				t.Errorf("restoreResponse(out) = %#q, %v; want the input", back, err)
			}
		})
	}
}

func TestRewriteRequestInvalidJSON(t *testing.T) {
	for _, in := range []string{``, `not json`, `{"response":`, `{"a":1}{}`, "\xef\xbb\xbf{}"} {
		t.Run(in, func(t *testing.T) {
			body := []byte(in)
			out, emitted, changed, err := rewriteRequest(body, "weather")
			if !errors.Is(err, ErrInvalidJSON) {
				t.Errorf("err = %v, want ErrInvalidJSON", err)
			}
			if got, want := err.Error(), "mcpdoor: request body: invalid JSON"; got != want {
				t.Errorf("err = %q, want %q", got, want)
			}
			if changed || emitted != nil || !sameBytes(out, body) {
				t.Errorf("rewriteRequest = %#q, %v, %v; want the input itself, nil, false", out, emitted, changed)
			}
		})
	}
}

func TestRestoreResponse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		emitted emittedNames
		want    string // "" means unchanged
	}{
		{
			name:    "restores by call_id, keeps every other byte",
			in:      "{\"reward\": 1.0, \"response\": {\"output\": [\n {\"name\": \"get_weather\", \"type\": \"function_call\", \"call_id\": \"c1\"},\n {\"type\": \"message\", \"content\": \"\\u00e9t\\u00e9\"}\n]}, \"n\": 1E3}",
			emitted: emittedNames{"c1": {`"mcp__weather__get_weather"`}},
			want:    "{\"reward\": 1.0, \"response\": {\"output\": [\n {\"name\": \"mcp__weather__get_weather\", \"type\": \"function_call\", \"call_id\": \"c1\"},\n {\"type\": \"message\", \"content\": \"\\u00e9t\\u00e9\"}\n]}, \"n\": 1E3}",
		},
		{
			name:    "duplicates in order",
			in:      `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"a"},{"type":"function_call","call_id":"c2","name":"x"},{"type":"function_call","call_id":"c1","name":"b"}]}}`,
			emitted: emittedNames{"c1": {`"mcp__weather__a"`, `"mcp__weather__b"`}},
			want:    `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__a"},{"type":"function_call","call_id":"c2","name":"x"},{"type":"function_call","call_id":"c1","name":"mcp__weather__b"}]}}`,
		},
		{
			name:    "items beyond the recorded names untouched",
			in:      `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"a"},{"type":"function_call","call_id":"c1","name":"b"}]}}`,
			emitted: emittedNames{"c1": {`"mcp__weather__a"`}},
			want:    `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__a"},{"type":"function_call","call_id":"c1","name":"b"}]}}`,
		},
		{
			name:    "escaped name restored verbatim",
			in:      `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"café"}]}}`,
			emitted: emittedNames{"c1": {`"mcp__weather__caf\u00e9"`}},
			want:    `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__caf\u00e9"}]}}`,
		},
		{
			name:    "call_id never rewritten left alone",
			in:      `{"response":{"output":[{"type":"function_call","call_id":"c9","name":"a"}]}}`,
			emitted: emittedNames{"c1": {`"mcp__weather__a"`}},
		},
		{
			name:    "name already as emitted",
			in:      `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"mcp__weather__a"}]}}`,
			emitted: emittedNames{"c1": {`"mcp__weather__a"`}},
		},
		{
			name:    "other item types untouched",
			in:      `{"response":{"output":[{"type":"function_call_output","call_id":"c1","name":"a"}]}}`,
			emitted: emittedNames{"c1": {`"mcp__weather__a"`}},
		},
		{
			name:    "no output",
			in:      `{"reward":0.5}`,
			emitted: emittedNames{"c1": {`"mcp__weather__a"`}},
		},
		{
			name:    "not an object",
			in:      `[{"type":"function_call","call_id":"c1","name":"a"}]`,
			emitted: emittedNames{"c1": {`"mcp__weather__a"`}},
		},
		{
			name: "nothing emitted",
			in:   `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"a"}]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.in)
			out, err := restoreResponse(in, tt.emitted)
			if err != nil {
				t.Fatalf("restoreResponse: %v", err)
			}
			if tt.want == "" {
				if !sameBytes(out, in) {
					t.Errorf("restoreResponse = %#q, want the input itself", out)
				}
				return
			}
			if string(out) != tt.want {
				t.Errorf("restoreResponse =\n%#q\nwant\n%#q", out, tt.want)
			}
		})
	}
}

func TestRestoreResponseErrors(t *testing.T) {
	valid := `{"response":{"output":[{"type":"function_call","call_id":"c1","name":"a"}]}}`
	tests := []struct {
		name, in string
		emitted  emittedNames
		is       error
		msg      string
	}{
		{"not JSON", "Internal Server Error\n", emittedNames{"c1": {`"x"`}}, ErrInvalidJSON, "mcpdoor: response body: invalid JSON"},
		{"truncated", valid[:40], emittedNames{"c1": {`"x"`}}, ErrInvalidJSON, "mcpdoor: response body: invalid JSON"},
		{"emitted name unquoted", valid, emittedNames{"c1": {`x`}}, nil, "mcpdoor: an emitted name is not a JSON string literal"},
		{"emitted name not a string", valid, emittedNames{"c1": {`["x"]`}}, nil, "mcpdoor: an emitted name is not a JSON string literal"},
		{"emitted names run together", valid, emittedNames{"c1": {`"x""y"`}}, nil, "mcpdoor: an emitted name is not a JSON string literal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.in)
			out, err := restoreResponse(in, tt.emitted)
			if err == nil || err.Error() != tt.msg {
				t.Fatalf("err = %v, want %q", err, tt.msg)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.is)
			}
			if !sameBytes(out, in) {
				t.Errorf("restoreResponse = %#q, want the input itself", out)
			}
		})
	}
}

// TestSingleUnderscore: with the server's tools known (the door's /verify),
// mcp_<server>_<tool> becomes <tool> where that is unambiguous, and every
// other name is kept.
func TestSingleUnderscore(t *testing.T) {
	tools := exposed.NewTools([]string{"get_weather", "mcp_weather_raw", "raw"})
	for _, tc := range []struct{ server, name, want string }{
		{"weather", "mcp_weather_get_weather", "get_weather"},
		{"weather", "mcp__weather__get_weather", "get_weather"}, // the double form, as ever
		{"weather", "mcp_weather_forecast", "mcp_weather_forecast"},
		{"weather", "mcp_other_get_weather", "mcp_other_get_weather"},
		{"weather", "mcp_weather_", "mcp_weather_"},
		{"weather", "mcp_weather_raw", "mcp_weather_raw"}, // itself a tool
		{"weather", "get_weather", "get_weather"},
		{"", "mcp_weather_get_weather", "mcp_weather_get_weather"}, // no server name: no way to tell
		{"ex_mcp", "mcp_ex_mcp_get_weather", "get_weather"},
	} {
		c := call{name: tc.name}
		if got, _ := c.target(nil, false, false, tc.server, tools); got != tc.want {
			t.Errorf("server %q, %q: %q, want %q", tc.server, tc.name, got, tc.want)
		}
		if got, _ := c.target(nil, false, false, tc.server, nil); got != Normalize(tc.name, tc.server) {
			t.Errorf("server %q, %q, no tools known: %q, want Normalize's %q", tc.server, tc.name, got, Normalize(tc.name, tc.server))
		}
	}
}

// TestRejectionsInClaimOrder: the rejections member the verifier reads
// lists the rejected claims in the order of the trajectory, the same bytes
// on every run, where it once followed a map's order.
func TestRejectionsInClaimOrder(t *testing.T) {
	tools := exposed.NewTools([]string{"weather"})
	door := &exposed.Door{Tools: tools, Check: func(claims []exposed.Claim, _ map[string]string) exposed.Verdict {
		v := exposed.Verdict{Rejected: map[int]string{}}
		for i := range claims {
			v.Rejected[i] = exposed.RejectNotExecuted
		}
		return v
	}}
	var body strings.Builder
	body.WriteString(`{"response":{"output":[`)
	for i := range 8 {
		if i > 0 {
			body.WriteString(",")
		}
		fmt.Fprintf(&body, `{"type":"function_call","call_id":"c%d","name":"mcp__s__weather","arguments":"{}"}`, i)
	}
	body.WriteString(`]}}`)
	want := `"` + exposed.RejectionsKey + `":{"c0":"not_executed","c1":"not_executed","c2":"not_executed","c3":"not_executed",` +
		`"c4":"not_executed","c5":"not_executed","c6":"not_executed","c7":"not_executed"}}`
	for run := range 20 {
		rw, err := plan([]byte(body.String()), "s", door)
		if err != nil {
			t.Fatal(err)
		}
		if out := readSpliced(t, []byte(body.String()), rw.edits); !bytes.HasSuffix(out, []byte(want)) {
			t.Fatalf("run %d: the verifier's body ends %q, want it to end %q", run, out[max(0, len(out)-len(want)):], want)
		}
	}
}
