package openapi

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Bounds on the work of reading a document. The document is
// configuration, but a startup that hangs on it is still a failure: YAML
// aliases and $refs let a small document name a schema of 2^200 values,
// merge keys let it copy n²/2 keys. Load counts what it builds as it
// builds it, in the units its cost grows with, and stops where a bound is
// reached, so that any document of up to maxDocument bytes reads in a
// fraction of a second.
const (
	// maxDocument is the largest document Load reads, in bytes.
	maxDocument = 4 << 20

	// Inlining a component at each of its uses can grow a schema
	// exponentially (A uses B twice, B uses C twice...); past inlineValues
	// values an operation's components go to $defs instead, which is
	// linear in the document's size. maxValues bounds that too, against
	// YAML aliases, and documentValues bounds the whole document's
	// schemas. A value is a schema or a value in one (a default, an enum).
	inlineValues   = 5000
	maxValues      = 200000
	documentValues = 2000000

	// A schema costs far more than the other values, to build and then
	// to resolve (jsonschema-go's Resolve, which Load runs on each input
	// schema and Install again): the schemas are bounded on their own.
	maxSchemas      = 10000
	documentSchemas = 20000

	// The keys and strings of a schema are copied into it, and the
	// resolver builds the JSON pointer of each of its schemas, so a long
	// string or key repeated by YAML aliases, or deep down, costs in
	// proportion to its length: the bytes of a schema's keys, strings and
	// pointers are bounded the same way, inlineBytes before components go
	// to $defs.
	inlineBytes   = 1 << 20
	maxBytes      = 8 << 20
	documentBytes = 32 << 20

	// maxKeys bounds the keys Load reads outside schemas: path items,
	// operations, request bodies, each as often as an alias names it.
	maxKeys = 2 << 20

	// maxMerged bounds the keys merge keys (<<) copy, each mapping's once.
	maxMerged = 128 << 10
)

// A budget is what converting schemas may still cost.
type budget struct {
	values  int // values visited: schemas and the values in them
	schemas int // schemas built
	bytes   int // bytes of their keys, strings and JSON pointers
}

// take takes c from b, and reports whether b covered it.
func (b *budget) take(c budget) bool {
	b.values -= c.values
	b.schemas -= c.schemas
	b.bytes -= c.bytes
	return b.values >= 0 && b.schemas >= 0 && b.bytes >= 0
}

// within returns b, each part no more than in limit.
func (b budget) within(limit budget) budget {
	return budget{min(b.values, limit.values), min(b.schemas, limit.schemas), min(b.bytes, limit.bytes)}
}

// spent returns what was taken from b to leave left, counting a part run
// out as spent whole.
func (b budget) spent(left budget) budget {
	return budget{b.values - max(left.values, 0), b.schemas - max(left.schemas, 0), b.bytes - max(left.bytes, 0)}
}

// errTooBig stops a conversion that runs out of its budget.
var errTooBig = errors.New("too large")

// tooBig says which part of a schema's budget, left, ran out: the
// schema's own, or the document's, doc, when that is spent. whose names
// the document's budget ("document's", "document's response"), subject
// the schema: "the request body's schema".
func tooBig(left, doc budget, whose, subject string) string {
	what, body, document, docLeft := "values", maxValues, documentValues, doc.values
	switch {
	case left.schemas < 0:
		what, body, document, docLeft = "schemas", maxSchemas, documentSchemas, doc.schemas
	case left.bytes < 0:
		what, body, document, docLeft = "MiB of keys and strings", maxBytes>>20, documentBytes>>20, doc.bytes
	}
	if docLeft <= 0 {
		return fmt.Sprintf("the %s schemas are too large: more than %d %s once YAML aliases are expanded", whose, document, what)
	}
	return fmt.Sprintf("%s is too large: more than %d %s once YAML aliases are expanded", subject, body, what)
}

// keyBytes is what the keys of ps cost, as YAML writes them ("key: ").
func keyBytes(ps []pair) int {
	n := 0
	for _, p := range ps {
		n += len(p.key) + 2
	}
	return n
}

// readKeys takes keys from the document's budget of keys read outside
// schemas, or says that the document is too large, at the node n at
// where.
func (r *reader) readKeys(keys int, n *yaml.Node, where *pointer) error {
	if r.keys -= keys; r.keys < 0 {
		return errorf(n, where, "the document's paths are too large once YAML aliases are expanded: more than %d keys in path items, operations and request bodies", maxKeys)
	}
	return nil
}

// mergeKeys takes keys from the document's budget of keys that merge
// keys copy, or says that the merge key k at where copies too many.
func (r *reader) mergeKeys(keys int, k *yaml.Node, where *pointer) error {
	if r.merged -= keys; r.merged < 0 {
		return errorf(k, where, "the document's merge keys (<<) copy more than %d keys; merge fewer or smaller mappings", maxMerged)
	}
	return nil
}
