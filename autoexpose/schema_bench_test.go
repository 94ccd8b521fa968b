package autoexpose

import (
	"testing"

	"github.com/mcpdoor/mcpdoor/internal/argcheck"
)

// emailIn is a typical typed tool input: strings, a bounded number, an
// optional nullable field, a list and a nested object.
type emailIn struct {
	To       []string `json:"to" jsonschema:"the recipients"`
	Subject  string   `json:"subject"`
	Body     string   `json:"body"`
	Priority int      `json:"priority,omitempty"`
	ReplyTo  *string  `json:"reply_to,omitempty"`
	Sender   struct {
		Name    string `json:"name"`
		Address string `json:"address"`
	} `json:"sender"`
}

// BenchmarkValidateArgs measures what every tool call pays to check its
// arguments: decoding them and validating them against a typed input's
// schema, for valid arguments and for arguments with a missing field and a
// wrong type.
func BenchmarkValidateArgs(b *testing.B) {
	rs, err := argcheck.Compile(SchemaFor[emailIn]())
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, args string }{
		{"valid", `{"to":["ada@example.com","bob@example.com"],"subject":"Lunch","body":"Noon at the usual place?","priority":2,"reply_to":null,"sender":{"name":"Cy","address":"cy@example.com"}}`},
		{"invalid", `{"to":["ada@example.com",7],"subject":"Lunch","priority":2,"sender":{"name":"Cy"}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			args := []byte(c.args)
			want := c.name == "valid"
			b.ReportAllocs()
			for b.Loop() {
				if ae := rs.Validate(args); (ae == nil) != want {
					b.Fatal(ae)
				}
			}
		})
	}
}
