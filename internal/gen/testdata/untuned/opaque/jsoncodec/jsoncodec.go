// Package jsoncodec registers the JSON decoder of batches.
package jsoncodec

import (
	"encoding/json"
	"io"

	"example.com/untuned/opaque"
)

func init() {
	opaque.Register("application/json", func(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) })
}
