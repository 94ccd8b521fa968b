package mcpcall

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gorilla/securecookie"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/keyring"
)

// testStates signs request states with a fixed secret.
func testStates(t testing.TB) States {
	t.Helper()
	keys, err := keyring.New([]byte("a test secret of at least 32 bytes long"))
	if err != nil {
		t.Fatal(err)
	}
	return NewStates(keys)
}

// round runs the questions of one handler run of tool over the call's
// params, each under its key ("" for none), and returns each one's answer
// (nil where it is asked) and the call's input-required result.
func round(t *testing.T, states States, tool string, p *mcp.CallToolParamsRaw, keys []string, questions ...mcp.InputRequest) ([]mcp.InputResponse, *mcp.CallToolResult) {
	t.Helper()
	c := &Call{Req: &mcp.CallToolRequest{Params: p}, Version: ProtocolVersion2026}
	if err := c.OpenAnswers(tool, states); err != nil {
		t.Fatalf("opening the call's answers: %v", err)
	}
	var answers []mcp.InputResponse
	for i, q := range questions {
		ans, err := c.input.ask(keys[i], q)
		if err != nil && !errors.Is(err, ErrInputRequired) {
			t.Fatalf("question %d: %v", i, err)
		}
		answers = append(answers, ans)
	}
	res, err := c.InputRequired(tool, states)
	if err != nil {
		t.Fatal(err)
	}
	return answers, res
}

// TestInputRound: a handler's question under the 2026-07-28 protocol's input
// requests finds the answer the call carries (in its inputResponses, or in
// the request state of earlier rounds) when it is the same question in the
// same place, or the question of the key the handler named; anything else
// is asked (again).
func TestInputRound(t *testing.T) {
	states := testStates(t)
	name := &mcp.ElicitParams{Mode: "form", Message: "Your name?"}
	city := &mcp.ElicitParams{Mode: "form", Message: "Your city?"}
	ada := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}
	decline := &mcp.ElicitResult{Action: "decline"}
	unnamed := []string{"", ""}

	// The keys the questions get, as the first and the second of a run.
	_, res := round(t, states, "profile", &mcp.CallToolParamsRaw{}, unnamed, name, city)
	if res == nil || len(res.InputRequests) != 2 || res.RequestState == "" {
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
	_, res = round(t, states, "profile", &mcp.CallToolParamsRaw{InputResponses: mcp.InputResponseMap{nameKey: ada}}, unnamed, name, city)
	state := res.RequestState

	for _, tc := range []struct {
		name      string
		params    *mcp.CallToolParamsRaw
		keys      []string
		questions []mcp.InputRequest
		answers   []mcp.InputResponse // each question's answer, nil where it is asked
		asked     int                 // questions in the result
	}{
		{"no answers", &mcp.CallToolParamsRaw{}, unnamed, []mcp.InputRequest{name}, []mcp.InputResponse{nil}, 1},
		{"answered", &mcp.CallToolParamsRaw{InputResponses: mcp.InputResponseMap{nameKey: ada}}, unnamed, []mcp.InputRequest{name, city}, []mcp.InputResponse{ada, nil}, 1},
		{"answered in an earlier round", &mcp.CallToolParamsRaw{RequestState: state, InputResponses: mcp.InputResponseMap{cityKey: decline}},
			unnamed, []mcp.InputRequest{name, city}, []mcp.InputResponse{ada, decline}, 0},
		{"another question in the place of the answered one", &mcp.CallToolParamsRaw{InputResponses: mcp.InputResponseMap{nameKey: ada}}, unnamed, []mcp.InputRequest{city}, []mcp.InputResponse{nil}, 1},
		{"the answered question in another place", &mcp.CallToolParamsRaw{InputResponses: mcp.InputResponseMap{nameKey: ada}}, unnamed, []mcp.InputRequest{city, name}, []mcp.InputResponse{nil, nil}, 2},
		{"named, answered unasked", &mcp.CallToolParamsRaw{InputResponses: mcp.InputResponseMap{"user_name": ada, "extra": decline}}, []string{"user_name"}, []mcp.InputRequest{name}, []mcp.InputResponse{ada}, 0},
		{"named, asked", &mcp.CallToolParamsRaw{InputResponses: mcp.InputResponseMap{"wrong_key": ada}}, []string{"user_name"}, []mcp.InputRequest{name}, []mcp.InputResponse{nil}, 1},
		{"named and unnamed", &mcp.CallToolParamsRaw{InputResponses: mcp.InputResponseMap{"where": decline}}, []string{"where", ""}, []mcp.InputRequest{city, name}, []mcp.InputResponse{decline, nil}, 1},
		//lint:ignore SA1019 roots stay in the protocol for the deprecation window
		{"roots", &mcp.CallToolParamsRaw{}, []string{"client_roots"}, []mcp.InputRequest{&mcp.ListRootsParams{}}, []mcp.InputResponse{nil}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, res := round(t, states, "profile", tc.params, tc.keys, tc.questions...)
			for i, want := range tc.answers {
				if !reflect.DeepEqual(got[i], want) {
					g, _ := json.Marshal(got[i])
					w, _ := json.Marshal(want)
					t.Errorf("question %d: answer %T %s, want %T %s", i, got[i], g, want, w)
				}
			}
			if asked := 0; res != nil {
				asked = len(res.InputRequests)
				if asked != tc.asked {
					t.Errorf("%d questions in the result, want %d", asked, tc.asked)
				}
			} else if tc.asked != 0 {
				t.Errorf("no questions in the result, want %d", tc.asked)
			}
		})
	}
}

// TestRequestStateRefused: a request state that does not verify — changed,
// not signed, signed for another tool, or by another secret — refuses the
// call with invalid params, and the state of a round verifies for its tool.
func TestRequestStateRefused(t *testing.T) {
	states := testStates(t)
	ada := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}
	state, err := states.seal("profile", mcp.InputResponseMap{"user_name": ada})
	if err != nil {
		t.Fatal(err)
	}
	if answers, err := states.open("profile", &mcp.CallToolParamsRaw{RequestState: state}); err != nil || !reflect.DeepEqual(answers["user_name"], ada) {
		t.Errorf("the state as sealed: %v, %v", answers, err)
	}
	other, err := keyring.New([]byte("another secret of at least 32 bytes long"))
	if err != nil {
		t.Fatal(err)
	}
	foreign, _ := NewStates(other).seal("profile", nil)
	for name, bad := range map[string]string{
		"changed":        state + "-TAMPERED",
		"cut":            state[:len(state)-4],
		"not signed":     "e30",
		"not base64":     "%%%",
		"another secret": foreign,
		"another tool's": func() string { s, _ := states.seal("other", nil); return s }(),
	} {
		_, err := states.open("profile", &mcp.CallToolParamsRaw{RequestState: bad})
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpcErr.Message, "the requestState does not verify") {
			t.Errorf("%s: %v, want invalid params", name, err)
		}
	}
}

// FuzzRequestState reads any request state a client echoes: nothing panics,
// and a state either is refused or holds answers that marshal again; so does
// a state signed here whose content is any JSON.
func FuzzRequestState(f *testing.F) {
	states := testStates(f)
	f.Fuzz(func(t *testing.T, state string) {
		check := func(state string) {
			answers, err := states.open("t", &mcp.CallToolParamsRaw{RequestState: state})
			if err != nil {
				return
			}
			if _, err := json.Marshal(answers); err != nil {
				t.Fatalf("%q: the answers do not marshal: %v", state, err)
			}
		}
		check(state)
		if json.Valid([]byte(state)) {
			signed, err := securecookie.EncodeMulti("t", json.RawMessage(state), states...)
			if err == nil {
				check(signed)
			}
		}
	})
}
