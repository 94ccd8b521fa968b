package autoexpose

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInputRound: a handler's question under the 2026-07-28 protocol's input
// requests finds the answer the call carries (in its inputResponses, or in
// the request state of earlier rounds) when it is the same question in the
// same place; anything else is asked (again).
func TestInputRound(t *testing.T) {
	name := &mcp.ElicitParams{Mode: "form", Message: "Your name?"}
	city := &mcp.ElicitParams{Mode: "form", Message: "Your city?"}
	ada := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}
	decline := &mcp.ElicitResult{Action: "decline"}

	// The keys the questions get, as the first and the second of a run.
	first := &mcpCall{}
	first.input.ask(&mcp.CallToolParamsRaw{}, name)
	first.input.ask(&mcp.CallToolParamsRaw{}, city)
	res := first.inputRequired()
	if res == nil || len(res.InputRequests) != 2 {
		t.Fatalf("two questions asked, result %+v", res)
	}
	var nameKey, cityKey string
	for k, q := range res.InputRequests {
		if q == name {
			nameKey = k
		} else {
			cityKey = k
		}
	}
	if nameKey != "mcpdoor-1-c0f2b7e4d455" || cityKey != "mcpdoor-2-5f6d6d57e000" {
		t.Errorf("keys %s, %s", nameKey, cityKey)
	}
	// The state of a round whose call answered the name.
	answered := &mcpCall{}
	answered.input.ask(&mcp.CallToolParamsRaw{InputResponses: mcp.InputResponseMap{nameKey: ada}}, name)
	answered.input.ask(nil, city)
	state := answered.inputRequired().RequestState

	for _, tc := range []struct {
		name      string
		params    *mcp.CallToolParamsRaw
		questions []*mcp.ElicitParams
		answers   []mcp.InputResponse // each question's answer, nil where it is asked
		asked     int                 // questions in the result
	}{
		{"no answers", &mcp.CallToolParamsRaw{}, []*mcp.ElicitParams{name}, []mcp.InputResponse{nil}, 1},
		{"answered", &mcp.CallToolParamsRaw{InputResponses: mcp.InputResponseMap{nameKey: ada}}, []*mcp.ElicitParams{name, city}, []mcp.InputResponse{ada, nil}, 1},
		{"answered in an earlier round", &mcp.CallToolParamsRaw{RequestState: state, InputResponses: mcp.InputResponseMap{cityKey: decline}},
			[]*mcp.ElicitParams{name, city}, []mcp.InputResponse{ada, decline}, 0},
		{"another question in the place of the answered one", &mcp.CallToolParamsRaw{InputResponses: mcp.InputResponseMap{nameKey: ada}}, []*mcp.ElicitParams{city}, []mcp.InputResponse{nil}, 1},
		{"the answered question in another place", &mcp.CallToolParamsRaw{InputResponses: mcp.InputResponseMap{nameKey: ada}}, []*mcp.ElicitParams{city, name}, []mcp.InputResponse{nil, nil}, 2},
		{"a state that does not decode", &mcp.CallToolParamsRaw{RequestState: "%%%"}, []*mcp.ElicitParams{name}, []mcp.InputResponse{nil}, 1},
		{"a state that is not answers", &mcp.CallToolParamsRaw{RequestState: base64.RawURLEncoding.EncodeToString([]byte(`{"k":{"x":1}}`))}, []*mcp.ElicitParams{name}, []mcp.InputResponse{nil}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &mcpCall{}
			for i, q := range tc.questions {
				ans, err := c.input.ask(tc.params, q)
				want := tc.answers[i]
				if got := err == nil; got != (want != nil) {
					t.Errorf("question %d: answered %t (%v, %v), want %t", i, got, ans, err, want != nil)
				} else if got && !reflect.DeepEqual(ans, want) {
					g, _ := json.Marshal(ans)
					w, _ := json.Marshal(want)
					t.Errorf("question %d: answer %T %s, want %T %s", i, ans, g, want, w)
				}
				if err != nil && !errors.Is(err, errInputRequired) {
					t.Errorf("question %d: %v", i, err)
				}
			}
			res := c.inputRequired()
			if got := 0; res != nil {
				got = len(res.InputRequests)
				if got != tc.asked {
					t.Errorf("%d questions in the result, want %d", got, tc.asked)
				}
			} else if tc.asked != 0 {
				t.Errorf("no questions in the result, want %d", tc.asked)
			}
		})
	}
}

// FuzzRequestState reads any request state a client echoes: nothing panics,
// and a state either holds answers that marshal again, or none.
func FuzzRequestState(f *testing.F) {
	f.Fuzz(func(t *testing.T, state string) {
		answers := received(&mcp.CallToolParamsRaw{RequestState: state})
		if _, err := json.Marshal(answers); err != nil {
			t.Fatalf("%q: the answers do not marshal: %v", state, err)
		}
	})
}
