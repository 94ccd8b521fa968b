package rollout

import (
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/exposed"
	"github.com/mcpdoor/mcpdoor/internal/keyring"
	"github.com/mcpdoor/mcpdoor/internal/sessions"
)

func receiptContract(t *testing.T, server string, secrets ...string) *Contract {
	t.Helper()
	var bs [][]byte
	for _, s := range secrets {
		bs = append(bs, []byte(s))
	}
	keys, err := keyring.New(bs...)
	if err != nil {
		t.Fatal(err)
	}
	return New(Config{}, Params{Server: server, Sessions: sessions.New(keys, nil)})
}

// TestReceiptBound: a receipt verifies for its own claim only — not for
// another server, tool, call_id, emitted name or arguments — and still
// verifies once the secret that signed it is the ring's second.
func TestReceiptBound(t *testing.T) {
	const old, next = "the secret that signed the receipts, 32+ bytes", "the secret rolled out in front of it, 32+ bytes"
	c := receiptContract(t, "weather", old)
	claim := exposed.Claim{ID: "call_1", Emitted: "mcp__weather__get_weather", Tool: "get_weather", Arguments: `{"city": "Paris"}`}
	args := Canonical([]byte(claim.Arguments))
	r := c.receipt(claim, args)
	if !c.verifyReceipt(claim, args, r) {
		t.Fatal("a receipt does not verify for its own claim")
	}
	// The arguments are compared in canonical form.
	if !c.verifyReceipt(claim, Canonical([]byte(`{"city":"Paris"}`)), r) {
		t.Error("the same arguments, written otherwise, do not verify")
	}
	for name, other := range map[string]exposed.Claim{
		"tool":      {ID: claim.ID, Emitted: claim.Emitted, Tool: "forecast", Arguments: claim.Arguments},
		"call_id":   {ID: "call_2", Emitted: claim.Emitted, Tool: claim.Tool, Arguments: claim.Arguments},
		"emitted":   {ID: claim.ID, Emitted: "get_weather", Tool: claim.Tool, Arguments: claim.Arguments},
		"arguments": {ID: claim.ID, Emitted: claim.Emitted, Tool: claim.Tool, Arguments: `{"city":"Oslo"}`},
	} {
		if c.verifyReceipt(other, Canonical([]byte(other.Arguments)), r) {
			t.Errorf("another %s verifies", name)
		}
	}
	if receiptContract(t, "maps", old).verifyReceipt(claim, args, r) {
		t.Error("another server's door verifies it")
	}
	if receiptContract(t, "weather", next).verifyReceipt(claim, args, r) {
		t.Error("another secret verifies it")
	}
	if !receiptContract(t, "weather", next, old).verifyReceipt(claim, args, r) {
		t.Error("after a rotation, the old secret's receipt does not verify")
	}
	for _, bad := range []string{"", "r1.", "r2." + r[3:], r + "x", r[:len(r)-2]} {
		if c.verifyReceipt(claim, args, bad) {
			t.Errorf("%q verifies", bad)
		}
	}
}

// TestMatcher: a claim uses up one call of the ledger: by the agent's id
// where the call has one, else by tool and arguments, oldest first.
func TestMatcher(t *testing.T) {
	calls := []Call{
		{Tool: "get_weather", Arguments: []byte(`{"city":"Paris"}`), IDs: []string{"rpc:1"}},
		{Tool: "get_weather", Arguments: []byte(`{"city":"Paris"}`)},
		{Tool: "get_weather", Arguments: []byte(`{"city":"Rome"}`), IDs: []string{"toolu_9"}},
	}
	m := newMatcher(calls)
	for _, tc := range []struct {
		id, tool, args, want string
	}{
		{"c1", "get_weather", `{"city":"Paris"}`, ""},
		{"c2", "get_weather", `{"city": "Paris"}`, ""},
		{"c3", "get_weather", `{"city":"Paris"}`, exposed.RejectDuplicate},
		{"c4", "get_weather", `{"city":"Rome"}`, exposed.RejectNotExecuted}, // its call has an agent id
		{"toolu_9", "get_weather", `{"city":"Lima"}`, exposed.RejectArguments},
		{"toolu_9", "forecast", `{"city":"Rome"}`, exposed.RejectNotExecuted},
		{"toolu_9", "get_weather", `{"city":"Rome"}`, ""},
		{"toolu_9", "get_weather", `{"city":"Rome"}`, exposed.RejectDuplicate},
		{"c5", "forecast", `{}`, exposed.RejectNotExecuted},
	} {
		if got := m.match(exposed.Claim{ID: tc.id, Tool: tc.tool, Arguments: tc.args}, Canonical([]byte(tc.args))); got != tc.want {
			t.Errorf("claim %s %s %s: %q, want %q", tc.id, tc.tool, tc.args, got, tc.want)
		}
	}
}
