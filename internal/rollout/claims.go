package rollout

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/exposed"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
	"github.com/mcpdoor/mcpdoor/internal/store"
)

// check returns the check of the claims of /verify request r
// (exposed.Door.Check), nil when mcp.rollout.claims is off.
//
// A request in a rollout's session (its cookie, as NeMo Gym's agents post
// /verify) has its claims matched against that session's ledger; one in
// none (gym eval reverify posts none) against the receipts it carries.
// Each claim is accepted, and gets a receipt, or rejected as:
//
//   - exposed.RejectDuplicate: its call_id is another item's too, or it
//     claims a call an earlier claim did;
//   - exposed.RejectArguments: the ledger's call of its id had other
//     arguments;
//   - exposed.RejectNotExecuted: the ledger has no call of its tool with
//     its arguments (or its id), or, with no session, its receipt is
//     missing or not its own.
func (c *Contract) check(r *http.Request) func([]exposed.Claim, map[string]string) exposed.Verdict {
	if c.claims == ClaimsOff {
		return nil
	}
	return func(claims []exposed.Claim, receipts map[string]string) exposed.Verdict {
		var judge func(claim exposed.Claim, args []byte) string
		if sid, ok := c.rolloutSession(r); ok {
			calls, err := c.ledger(r.Context(), sid)
			if err != nil && !errors.Is(err, store.ErrEnded) {
				return exposed.Verdict{Refuse: fmt.Errorf("mcpdoor: /verify: the session store: reading the session's ledger: %w", err)}
			}
			judge = newMatcher(calls).match
		} else {
			judge = func(claim exposed.Claim, args []byte) string {
				if c.verifyReceipt(claim, args, receipts[claim.ID]) {
					return ""
				}
				return exposed.RejectNotExecuted
			}
		}
		var v exposed.Verdict
		for i, claim := range claims {
			args := Canonical([]byte(claim.Arguments))
			why := exposed.RejectDuplicate
			if !claim.Duplicate {
				why = judge(claim, args)
			}
			if why != "" {
				if v.Rejected == nil {
					v.Rejected = make(map[int]string)
				}
				v.Rejected[i] = why
				continue
			}
			if claim.ID != "" {
				if v.Receipts == nil {
					v.Receipts = make(map[string]string, len(claims))
				}
				v.Receipts[claim.ID] = c.receipt(claim, args)
			}
		}
		if len(v.Rejected) > 0 && c.claims == ClaimsRefuse {
			return exposed.Verdict{Refuse: refusal(claims, v.Rejected)}
		}
		return v
	}
}

// rolloutSession returns the rollout session a /verify request is posted
// in, if any.
func (c *Contract) rolloutSession(r *http.Request) (string, bool) {
	if s := sessions.SessionOf(r.Context()); s != nil && s.IsRollout() {
		return s.ID, true
	}
	if id, rollout, err := c.sessions.ReadCookie(r); err == nil && rollout {
		return id, true
	}
	return "", false
}

// refusal is the error of a trajectory refused for its rejected claims:
// the first few, by call_id, emitted name and why.
func refusal(claims []exposed.Claim, rejected map[int]string) error {
	idx := make([]int, 0, len(rejected))
	for i := range rejected {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	const shown = 5
	var b strings.Builder
	for n, i := range idx {
		if n == shown {
			fmt.Fprintf(&b, "; and %d more", len(idx)-shown)
			break
		}
		if n > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "call_id %q (%s): %s", claims[i].ID, claims[i].Emitted, rejected[i])
	}
	return fmt.Errorf("mcpdoor: /verify: the trajectory claims %d tool call(s) this server did not execute as claimed: %s "+
		"(mcp.rollout.claims: refuse; a claim must match a call the rollout's session made, or carry its receipt)", len(idx), b.String())
}

// A matcher matches claims against a session's ledger, each call at most
// once.
type matcher struct {
	calls []Call
	used  []bool
	byID  map[string]int   // an agent's call id: its call
	byKey map[string][]int // tool and arguments: the calls without an agent's id, oldest first
}

func newMatcher(calls []Call) *matcher {
	m := &matcher{calls: calls, used: make([]bool, len(calls)), byID: make(map[string]int), byKey: make(map[string][]int, len(calls))}
	for i, call := range calls {
		if !agentID(call.IDs) {
			k := key(call.Tool, call.Arguments)
			m.byKey[k] = append(m.byKey[k], i)
			continue
		}
		for _, id := range call.IDs {
			if _, taken := m.byID[id]; !taken {
				m.byID[id] = i
			}
		}
	}
	return m
}

func key(tool string, args []byte) string { return tool + "\x00" + string(args) }

// match returns why claim, of canonical arguments args, is rejected, or ""
// when a call of the ledger
// bears it out, which it then uses up. A call the agent gave an id of its
// own is matched by that id; any other by its tool and arguments, the
// oldest unused first.
func (m *matcher) match(claim exposed.Claim, args []byte) string {
	if i, ok := m.byID[claim.ID]; ok && claim.ID != "" {
		call := m.calls[i]
		switch {
		case call.Tool != claim.Tool:
			return exposed.RejectNotExecuted
		case !bytes.Equal(call.Arguments, args):
			return exposed.RejectArguments
		case m.used[i]:
			return exposed.RejectDuplicate
		}
		m.used[i] = true
		return ""
	}
	k := key(claim.Tool, args)
	same := m.byKey[k]
	for len(same) > 0 && m.used[same[0]] {
		same = same[1:]
	}
	m.byKey[k] = same
	if len(same) == 0 {
		if _, seen := m.seen(k); seen {
			return exposed.RejectDuplicate
		}
		return exposed.RejectNotExecuted
	}
	m.used[same[0]] = true
	return ""
}

// seen reports whether the ledger holds a call of key k at all.
func (m *matcher) seen(k string) (int, bool) {
	for i, call := range m.calls {
		if !agentID(call.IDs) && key(call.Tool, call.Arguments) == k {
			return i, true
		}
	}
	return 0, false
}

// agentID reports whether ids hold an agent's own id for a call, which
// its claim must name.
func agentID(ids []string) bool {
	return slices.ContainsFunc(ids, func(id string) bool { return !strings.HasPrefix(id, "rpc:") })
}
