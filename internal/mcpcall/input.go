package mcpcall

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/gorilla/securecookie"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpdoor/mcpdoor/internal/keyring"
)

// inputRound is one run of a tool call's handler under the 2026-07-28
// protocol's input requests (SEP-2322), the way a stateless session asks
// the client a question: the handler's Elicit, Sample or Roots finds the
// client's answer in the call, or the question is noted and the call's
// result asks it; the client then calls the tool again with the answer, and
// the handler runs again.
//
// A question's key is the one the handler named (InputKey), or else its
// place among the run's unnamed questions and a digest of it, so a run
// that asks the same questions in the same order finds their answers, and
// a question that changed is asked again. The client sends back only the
// answers to the last round's questions; the earlier ones travel in the
// request state, which the client echoes. The state is signed with the
// door's secret and bound to the tool (see States): a state the client
// changed is refused, so that what a handler got as an earlier answer is
// what the client answered then, to this tool's question.
type inputRound struct {
	mu      sync.Mutex
	answers mcp.InputResponseMap // the call's: the state's and the last round's
	n       int                  // unnamed questions asked so far in this run
	asked   mcp.InputRequestMap
	// missing is the client capability a question needed and the client
	// did not declare ("elicitation", "sampling", "roots"), if any: a call
	// that then fails is answered with the protocol's error that says so
	// (see Call.MissingCapability).
	missing string
}

// ErrInputRequired is what Elicit, Sample and Roots return to a handler
// whose question goes back to the client in the call's result.
var ErrInputRequired = errors.New("the question goes to the client in this call's result (protocol 2026-07-28 input request), and this handler runs again with the answer: return")

// ask returns the answer to question, asked under key ("" for the
// generated one), that the call carries, or notes the question and returns
// ErrInputRequired.
func (r *inputRound) ask(key string, question mcp.InputRequest) (mcp.InputResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if key == "" {
		b, err := json.Marshal(question)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		r.n++
		key = fmt.Sprintf("mcpdoor-%d-%x", r.n, sum[:6])
	}
	if ans, ok := r.answers[key]; ok {
		return ans, nil
	}
	if r.asked == nil {
		r.asked = make(mcp.InputRequestMap)
	}
	r.asked[key] = question
	return nil, ErrInputRequired
}

// lacks notes that a question needed the client capability name.
func (r *inputRound) lacks(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.missing == "" {
		r.missing = name
	}
}

// States signs and opens the request states of a door's input-required
// results: its key ring's codecs of purpose "input-state", which refuse a
// state over 64 KiB encoded. A state is the JSON of the answers so far,
// signed under the tool's name.
type States []securecookie.Codec

// NewStates returns the States of a door's key ring.
func NewStates(keys keyring.Keys) States {
	return keyring.Codecs(keys, "input-state", 0)
}

// errBadState is the error of a call whose request state does not verify.
var errBadState = errors.New("the requestState does not verify: it was changed, or not made by this server for this tool")

// open returns the answers a call of tool carries: those of earlier rounds,
// in its request state, and those of the last round; or, for a state that
// does not verify, the JSON-RPC error (invalid params) that refuses the
// call.
func (s States) open(tool string, p *mcp.CallToolParamsRaw) (mcp.InputResponseMap, error) {
	if p.RequestState == "" {
		return p.InputResponses, nil // the call's own, which it does not change
	}
	var earlier json.RawMessage
	if err := securecookie.DecodeMulti(tool, p.RequestState, &earlier, s...); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("mcpdoor: tool %s: %v", tool, errBadState)}
	}
	var answers mcp.InputResponseMap
	if err := json.Unmarshal(earlier, &answers); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("mcpdoor: tool %s: the requestState's answers: %v", tool, err)}
	}
	if answers == nil {
		answers = make(mcp.InputResponseMap, len(p.InputResponses))
	}
	maps.Copy(answers, p.InputResponses)
	return answers, nil
}

// seal returns the request state that carries answers to the next call of
// tool.
func (s States) seal(tool string, answers mcp.InputResponseMap) (string, error) {
	b, err := json.Marshal(answers)
	if err != nil {
		return "", err
	}
	return securecookie.EncodeMulti(tool, json.RawMessage(b), s...)
}

// OpenAnswers reads, for a call of tool under 2026-07-28, the answers it
// carries to its handler's questions (see States.open).
func (c *Call) OpenAnswers(tool string, states States) error {
	if c == nil || c.Version < ProtocolVersion2026 {
		return nil
	}
	answers, err := states.open(tool, c.Req.Params)
	if err != nil {
		return err
	}
	c.input.answers = answers
	return nil
}

// InputRequired returns the result that asks the client the questions the
// handler asked, or nil when it asked none the call did not answer; or the
// error of answers too large to carry on in a request state.
func (c *Call) InputRequired(tool string, states States) (*mcp.CallToolResult, error) {
	if c == nil {
		return nil, nil
	}
	r := &c.input
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.asked) == 0 {
		return nil, nil
	}
	state, err := states.seal(tool, r.answers)
	if err != nil {
		return nil, fmt.Errorf("mcpdoor: tool %s: the answers so far do not fit in a request state: %w", tool, err)
	}
	// Content is empty, not null: a client checks a result's shape before it
	// looks at its type.
	return &mcp.CallToolResult{Content: []mcp.Content{}, InputRequests: maps.Clone(r.asked), RequestState: state}, nil
}

// MissingCapability returns the protocol's error for a call of tool that
// needed a client capability the client did not declare, and failed
// (status is the route's): MissingRequiredClientCapabilityError (-32021,
// SEP-2575), which names the capability; nil for a call that declared all
// it needed, or that went on without (a route that answered below 400),
// and before protocol 2026-07-28, which has no such error.
func (c *Call) MissingCapability(tool string, status int) error {
	if c == nil || c.Version < ProtocolVersion2026 || status < 400 {
		return nil
	}
	c.input.mu.Lock()
	name := c.input.missing
	c.input.mu.Unlock()
	if name == "" {
		return nil
	}
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{name: struct{}{}}}) // cannot fail
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: fmt.Sprintf("mcpdoor: tool %s needs the client's %s capability, which the request does not declare", tool, name),
		Data:    data,
	}
}
