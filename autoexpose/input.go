package autoexpose

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// inputRound is one run of a tool call's handler under the 2026-07-28
// protocol's input requests (SEP-2322), the way a stateless session asks
// the client a question: the handler's Elicit or Sample finds the client's
// answer in the call, or the question is noted and the call's result asks
// it; the client then calls the tool again with the answer, and the handler
// runs again.
//
// A question's key is its place among the run's questions and a digest of
// it, so a run that asks the same questions in the same order finds their
// answers, and a question that changed is asked again. The client sends
// back only the answers to the last round's questions; the earlier ones
// travel in the request state, which the client echoes. The state holds
// nothing but the client's own answers, so it gives a client no power it
// does not have by answering: it is not signed.
type inputRound struct {
	mu      sync.Mutex
	answers mcp.InputResponseMap // nil until the first question
	n       int                  // questions asked so far in this run
	asked   mcp.InputRequestMap
}

// errInputRequired is what Elicit and Sample return to a handler whose
// question goes back to the client in the call's result.
var errInputRequired = errors.New("the question goes to the client in this call's result (protocol 2026-07-28 input request), and this handler runs again with the answer: return")

// ask returns the answer to question that the call carries, or notes the
// question and returns errInputRequired.
func (r *inputRound) ask(p *mcp.CallToolParamsRaw, question mcp.InputRequest) (mcp.InputResponse, error) {
	b, err := json.Marshal(question)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.answers == nil {
		r.answers = received(p)
	}
	r.n++
	key := fmt.Sprintf("mcpdoor-%d-%x", r.n, sum[:6])
	if ans, ok := r.answers[key]; ok {
		return ans, nil
	}
	if r.asked == nil {
		r.asked = make(mcp.InputRequestMap)
	}
	r.asked[key] = question
	return nil, errInputRequired
}

// received returns the answers a call carries: those of earlier rounds, in
// its request state, and those of the last round.
func received(p *mcp.CallToolParamsRaw) mcp.InputResponseMap {
	answers := make(mcp.InputResponseMap)
	if b, err := base64.RawURLEncoding.DecodeString(p.RequestState); err == nil && len(b) > 0 {
		// A state that does not decode holds no answers: its questions are
		// asked again.
		var earlier mcp.InputResponseMap
		if json.Unmarshal(b, &earlier) == nil {
			maps.Copy(answers, earlier)
		}
	}
	maps.Copy(answers, p.InputResponses)
	return answers
}

// inputRequired returns the result that asks the client the questions the
// handler asked, or nil when it asked none the call did not answer.
func (c *mcpCall) inputRequired() *mcp.CallToolResult {
	if c == nil {
		return nil
	}
	r := &c.input
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.asked) == 0 {
		return nil
	}
	state, err := json.Marshal(r.answers)
	if err != nil {
		state = nil // the earlier questions are asked again
	}
	// Content is empty, not null: a client checks a result's shape before it
	// looks at its type.
	return &mcp.CallToolResult{Content: []mcp.Content{}, InputRequests: maps.Clone(r.asked), RequestState: base64.RawURLEncoding.EncodeToString(state)}
}
