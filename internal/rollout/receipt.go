package rollout

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strings"

	"github.com/mcpdoor/mcpdoor/internal/exposed"
	"github.com/mcpdoor/mcpdoor/internal/keyring"
)

// receiptPurpose is the key purpose receipts are signed under (keyring):
// no cookie or token signed by the same secret verifies as a receipt.
const receiptPurpose = "receipt"

// receiptPrefix versions a receipt's form.
const receiptPrefix = "r1."

// A receipt is what /verify stamps an accepted claim with: an HMAC-SHA256,
// under the server's secret, of the call's id, the name the agent emitted,
// its canonical arguments, the server and the tool. A replica with the same
// secret and none of the session's state re-verifies the claim from it,
// and no other claim verifies with it. The first key of the ring signs;
// every key verifies, so that a rotated secret keeps old receipts good.
//
// args are the claim's arguments in canonical form.
func (c *Contract) receipt(claim exposed.Claim, args []byte) string {
	return receiptPrefix + base64.RawURLEncoding.EncodeToString(c.mac(c.receiptKeys[0], claim, args))
}

// verifyReceipt reports whether receipt is claim's.
func (c *Contract) verifyReceipt(claim exposed.Claim, args []byte, receipt string) bool {
	sum, ok := strings.CutPrefix(receipt, receiptPrefix)
	if !ok {
		return false
	}
	got, err := base64.RawURLEncoding.DecodeString(sum)
	if err != nil || len(got) != sha256.Size {
		return false
	}
	for _, key := range c.receiptKeys {
		if hmac.Equal(got, c.mac(key, claim, args)) {
			return true
		}
	}
	return false
}

// mac is the MAC of claim under key: each field length-prefixed, so that
// no two claims' fields run together into the same bytes.
func (c *Contract) mac(key []byte, claim exposed.Claim, args []byte) []byte {
	m := hmac.New(sha256.New, key)
	var n [8]byte
	for _, f := range []string{c.server, claim.Tool, claim.ID, claim.Emitted, string(args)} {
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		m.Write(n[:])
		m.Write([]byte(f))
	}
	return m.Sum(nil)
}

func receiptKeys(k keyring.Keys) [][]byte { return keyring.MACKeys(k, receiptPurpose) }
