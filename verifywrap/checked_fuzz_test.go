package verifywrap

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/exposed"
)

// FuzzPlanChecked rewrites any body as the door's /verify does with the
// claims checked — every agent's name form, a check that marks every other
// claim and stamps the rest — and checks that the body the verifier reads
// and the answer with its receipts are valid JSON, that the marks are the
// body's rejections member, and that the rewrite leaves its input alone.
func FuzzPlanChecked(f *testing.F) {
	tools := exposed.NewTools([]string{"weather", "get-weather", "a"})
	f.Fuzz(func(t *testing.T, body []byte, server string) {
		orig := bytes.Clone(body)
		var marked int
		door := &exposed.Door{Tools: tools, Check: func(claims []exposed.Claim, receipts map[string]string) exposed.Verdict {
			v := exposed.Verdict{Rejected: map[int]string{}, Receipts: map[string]string{}}
			for i, c := range claims {
				if i%2 == 1 {
					v.Rejected[i] = exposed.RejectNotExecuted
					marked++
				} else {
					v.Receipts[c.ID] = "r1." + c.Tool
				}
			}
			return v
		}}
		rw, err := plan(body, server, door)
		if !bytes.Equal(body, orig) {
			t.Fatal("plan modified its input")
		}
		if !json.Valid(body) {
			if err == nil {
				t.Fatal("invalid JSON without an error")
			}
			return
		}
		if err != nil {
			t.Fatalf("plan: %v", err)
		}
		out := readSpliced(t, body, rw.edits)
		if !json.Valid(out) {
			t.Fatalf("the verifier's body is not JSON: %q from %q", out, body)
		}
		if marked > 0 {
			var root map[string]json.RawMessage
			if json.Unmarshal(out, &root) != nil || root[exposed.RejectionsKey] == nil {
				t.Fatalf("marked claims, but no %s in %q", exposed.RejectionsKey, out)
			}
		}
		// The verifier echoes what it read: the answer with the receipts.
		back, err := restoreEdits(out, rw.emitted)
		if err != nil {
			t.Fatalf("restoreEdits: %v", err)
		}
		answer := readSpliced(t, out, withReceipts(out, back, rw.receipts))
		if !json.Valid(answer) {
			t.Fatalf("the answer is not JSON: %q", answer)
		}
	})
}
