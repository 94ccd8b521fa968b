package argcheck

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// BenchmarkCompile measures what setting up a tool costs per distinct
// schema: jsonschema-go's resolution, then the validator's compilation.
func BenchmarkCompile(b *testing.B) {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(typedSchema()), &s); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(&s); err != nil {
			b.Fatal(err)
		}
	}
}
