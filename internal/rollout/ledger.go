package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpdoor/mcpdoor/internal/canonical"
	"github.com/mcpdoor/mcpdoor/internal/store"
)

// ledgerList is the store list (store.Lists.Append) that holds a
// session's execution ledger: part of the session's state, it goes when
// the session ends.
const ledgerList = "mcpdoor.ledger"

// A Call is one tool call a session executed: what its ledger records.
type Call struct {
	// IDs are the ids the call came with: its JSON-RPC id (where the
	// transport gives it, as "rpc:<id>") and the agent's own call id
	// (Claude Code's tool-use id, in _meta), which a trajectory names it by.
	IDs []string `json:"ids,omitempty"`
	// Tool is the tool called.
	Tool string `json:"tool"`
	// Arguments are the call's arguments in JSON canonical form; {} for
	// none.
	Arguments json.RawMessage `json:"args"`
	// Status is how the call ended: "ok", "error" (an isError result) or
	// "timeout".
	Status string `json:"status"`
	// At is when it ended, in Unix milliseconds.
	At int64 `json:"at"`
}

// Canonical returns the canonical form of a call's arguments, the JSON
// text args: {} for none (empty, or null); args compacted, when it has no
// canonical form.
func Canonical(args []byte) []byte {
	if len(args) == 0 {
		return []byte("{}")
	}
	out, err := canonical.Append(nil, args)
	if err != nil {
		return args
	}
	if string(out) == "null" {
		return []byte("{}")
	}
	return out
}

// Ledgered reports whether the contract keeps a ledger of each session's
// calls: unless mcp.rollout.claims is off.
func (c *Contract) Ledgered() bool { return c.claims != ClaimsOff }

// ErrNoLists is why a contract that keeps a ledger cannot: its session
// store keeps no lists (it has no Append and List methods).
var ErrNoLists = errors.New("mcpdoor: mcp.rollout.claims: the session store (Config.Store) keeps no lists, which the execution ledger needs: give the store the Append and List methods session.Store names, or set mcp.rollout.claims: off")

// CheckStore reports ErrNoLists when the contract keeps a ledger and its
// session store keeps no lists: Install refuses such a config.
func (c *Contract) CheckStore() error {
	if !c.Ledgered() {
		return nil
	}
	_, err := c.lists()
	return err
}

// lists is the session store's lists, where the ledger is kept.
func (c *Contract) lists() (store.Lists, error) {
	l, ok := c.sessions.Store().(store.Lists)
	if !ok {
		return nil, ErrNoLists
	}
	return l, nil
}

// Record adds call to the ledger of session sid, stamped now, if the
// contract keeps one. A session the store does not hold (it ended, or
// idled out) records nothing.
func (c *Contract) Record(ctx context.Context, sid string, call Call) error {
	if !c.Ledgered() || sid == "" {
		return nil
	}
	call.At = time.Now().UnixMilli()
	rec, err := json.Marshal(call)
	if err != nil {
		return err
	}
	lists, err := c.lists()
	if err != nil {
		return err
	}
	if err := lists.Append(ctx, sid, ledgerList, rec, c.maxLedger); err != nil {
		return fmt.Errorf("mcpdoor: session store: recording a tool call in the session's ledger: %w", err)
	}
	return nil
}

// ledger returns session sid's ledger, oldest call first.
func (c *Contract) ledger(ctx context.Context, sid string) ([]Call, error) {
	lists, err := c.lists()
	if err != nil {
		return nil, err
	}
	recs, err := lists.List(ctx, sid, ledgerList)
	if err != nil {
		return nil, err
	}
	calls := make([]Call, 0, len(recs))
	for _, r := range recs {
		var call Call
		if json.Unmarshal(r, &call) == nil {
			calls = append(calls, call)
		}
	}
	return calls, nil
}
