package main

// The fixtures of the suite's protocol 2026-07-28 scenarios (0.2):
// server-stateless's diagnostic tools and the input-required ones
// (SEP-2322), which ask the client questions in the call's result and are
// called again with the answers. They are plain routes too: each asks with
// autoexpose.Elicit, Sample or Roots, naming the question's key where the
// scenario looks for one (autoexpose.InputKey), and the door makes the
// input-required result, signs its request state, and answers the
// protocol's missing-capability error for a call that fails for want of a
// capability its client did not declare.

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
)

// inputRoutes are the routes of the 2026-07-28 fixtures, by path.
var inputRoutes = map[string]http.HandlerFunc{
	"/test_missing_capability":                    missingCapability,
	"/test_streaming_elicitation":                 streamingElicitation,
	"/test_logging_tool":                          loggingTool,
	"/test_input_required_result_elicitation":     askName,
	"/test_input_required_result_sampling":        askCapital,
	"/test_input_required_result_list_roots":      askRoots,
	"/test_input_required_result_request_state":   askConfirm("state-ok"),
	"/test_input_required_result_tampered_state":  askConfirm("integrity-ok"),
	"/test_input_required_result_multiple_inputs": askThree,
	"/test_input_required_result_multi_round":     askTwoRounds,
	"/test_input_required_result_capabilities":    askWhatCan,
}

var inputDeclared = map[string]autoexpose.Declaration{
	"test_missing_capability":                    {Description: "Needs the client's sampling capability: asks its LLM for a word."},
	"test_streaming_elicitation":                 {Description: "Reports progress, then asks the user to confirm."},
	"test_logging_tool":                          {Description: "Logs a line, at the level the client asks for."},
	"test_input_required_result_elicitation":     {Description: "Asks the user's name (input request user_name) and greets them."},
	"test_input_required_result_sampling":        {Description: "Asks the client's LLM for the capital of France (input request capital_question)."},
	"test_input_required_result_list_roots":      {Description: "Asks for the client's roots (input request client_roots)."},
	"test_input_required_result_request_state":   {Description: "Asks the user to confirm (input request confirm); the answer comes back with the request state."},
	"test_input_required_result_tampered_state":  {Description: "Asks the user to confirm (input request confirm); a request state that was changed is refused."},
	"test_input_required_result_multiple_inputs": {Description: "Asks the user's name, the LLM for a greeting and the client's roots, at once."},
	"test_input_required_result_multi_round":     {Description: "Asks the user's name, then their favorite color: two rounds."},
	"test_input_required_result_capabilities":    {Description: "Asks only what the client declared it can answer: the user (elicitation), the LLM (sampling)."},
}

// objectOf is an object schema of required string properties, but for
// those named "ok", which are booleans.
func objectOf(names ...string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, Required: names}
	for _, n := range names {
		typ := "string"
		if n == "ok" {
			typ = "boolean"
		}
		s.Properties[n] = &jsonschema.Schema{Type: typ}
	}
	return s
}

// sampleText asks the client's LLM prompt, under key, and returns its text.
func sampleText(r *http.Request, key, prompt string, maxTokens int64) (string, error) {
	//lint:ignore SA1019 sampling, deprecated as of MCP 2026-07-28, is what the suite tests
	res, err := autoexpose.Sample(autoexpose.InputKey(r.Context(), key), &mcp.CreateMessageParams{
		//lint:ignore SA1019 see above
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}},
		MaxTokens: maxTokens,
	})
	if err != nil {
		return "", err
	}
	text, _ := res.Content.(*mcp.TextContent)
	if text == nil {
		return "", fmt.Errorf("the LLM answered %T, not text", res.Content)
	}
	return text.Text, nil
}

// field returns the string form of an accepted answer's field, or "" for
// an answer that is not an acceptance.
func field(res *mcp.ElicitResult, name string) string {
	if res.Action != "accept" {
		return ""
	}
	return fmt.Sprint(res.Content[name])
}

func missingCapability(w http.ResponseWriter, r *http.Request) {
	text, err := sampleText(r, "word", "Say one word.", 10)
	if err != nil {
		askFailed(w, err)
		return
	}
	writeText(w, "Success: "+text)
}

func streamingElicitation(w http.ResponseWriter, r *http.Request) {
	if err := autoexpose.Progress(r.Context(), 50, 100, "half way"); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	res, err := autoexpose.Elicit(autoexpose.InputKey(r.Context(), "confirm"), "Go on?", objectOf("ok"))
	if err != nil {
		askFailed(w, err)
		return
	}
	writeText(w, "Streaming complete: action="+res.Action)
}

func loggingTool(w http.ResponseWriter, r *http.Request) {
	if err := autoexpose.Log(r.Context(), "info", "Diagnostic trace logging activated"); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeText(w, "Logging evaluated")
}

func askName(w http.ResponseWriter, r *http.Request) {
	res, err := autoexpose.Elicit(autoexpose.InputKey(r.Context(), "user_name"), "What is your name?", objectOf("name"))
	if err != nil {
		askFailed(w, err)
		return
	}
	writeText(w, "Hello, "+field(res, "name")+"!")
}

func askCapital(w http.ResponseWriter, r *http.Request) {
	text, err := sampleText(r, "capital_question", "What is the capital of France?", 100)
	if err != nil {
		askFailed(w, err)
		return
	}
	writeText(w, "LLM response: "+text)
}

// rootList is the roots' URIs, comma separated.
//
//lint:ignore SA1019 roots, deprecated as of MCP 2026-07-28, are what the suite tests
func rootList(res *mcp.ListRootsResult) string {
	var uris []string
	for _, root := range res.Roots {
		uris = append(uris, root.URI)
	}
	return strings.Join(uris, ", ")
}

func askRoots(w http.ResponseWriter, r *http.Request) {
	res, err := autoexpose.Roots(autoexpose.InputKey(r.Context(), "client_roots"))
	if err != nil {
		askFailed(w, err)
		return
	}
	writeText(w, "Roots: "+rootList(res))
}

// askConfirm asks the user to confirm, and answers what they did after
// word: which the door has checked the request state of, since the answer
// can come back with it.
func askConfirm(word string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		res, err := autoexpose.Elicit(autoexpose.InputKey(r.Context(), "confirm"), "Please confirm", objectOf("ok"))
		if err != nil {
			askFailed(w, err)
			return
		}
		writeText(w, fmt.Sprintf("%s: action=%s, ok=%s", word, res.Action, field(res, "ok")))
	}
}

// askThree asks its three questions in one round: it goes on past an
// unanswered one, so that the call's result asks all three.
func askThree(w http.ResponseWriter, r *http.Request) {
	name, nameErr := autoexpose.Elicit(autoexpose.InputKey(r.Context(), "user_name"), "What is your name?", objectOf("name"))
	greeting, greetingErr := sampleText(r, "greeting", "Generate a greeting", 50)
	roots, rootsErr := autoexpose.Roots(autoexpose.InputKey(r.Context(), "client_roots"))
	if err := errors.Join(nameErr, greetingErr, rootsErr); err != nil {
		askFailed(w, err)
		return
	}
	writeText(w, fmt.Sprintf("%s, %s! Roots: %s", greeting, field(name, "name"), rootList(roots)))
}

// askTwoRounds asks its second question once the first is answered: two
// rounds, the first answer carried in the request state.
func askTwoRounds(w http.ResponseWriter, r *http.Request) {
	name, err := autoexpose.Elicit(autoexpose.InputKey(r.Context(), "step1"), "Step 1: What is your name?", objectOf("name"))
	if err != nil {
		askFailed(w, err)
		return
	}
	color, err := autoexpose.Elicit(autoexpose.InputKey(r.Context(), "step2"), "Step 2: What is your favorite color?", objectOf("color"))
	if err != nil {
		askFailed(w, err)
		return
	}
	writeText(w, fmt.Sprintf("%s likes %s.", field(name, "name"), field(color, "color")))
}

// askWhatCan asks the user and the LLM, in one round, each only if the
// client can be asked: a question the client declared no capability for is
// skipped.
func askWhatCan(w http.ResponseWriter, r *http.Request) {
	res, elicitErr := autoexpose.Elicit(autoexpose.InputKey(r.Context(), "elicit_input"), "Elicitation input", objectOf("value"))
	text, sampleErr := sampleText(r, "sample_input", "Sample request", 50)
	var got []string
	var errs []error
	for _, a := range []struct {
		err    error
		answer func() string
	}{
		{elicitErr, func() string { return "elicitation: " + field(res, "value") }},
		{sampleErr, func() string { return "sampling: " + text }},
	} {
		switch {
		case a.err == nil:
			got = append(got, a.answer())
		case !errors.Is(a.err, errors.ErrUnsupported):
			errs = append(errs, a.err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		askFailed(w, err)
		return
	}
	if len(got) == 0 {
		writeText(w, "No supported capabilities declared")
		return
	}
	writeText(w, "capabilities-ok: "+strings.Join(got, "; "))
}
