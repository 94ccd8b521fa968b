package verifywrap

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The seed corpora live in testdata/fuzz. Beyond never panicking, the
// targets check the promises the package makes: untouched input, valid JSON
// in and out, the documented rules (applied by an independent implementation
// on encoding/json's view of the body), and exact round trips.

func FuzzRewriteRequest(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte, server string) {
		orig := bytes.Clone(body)
		out, emitted, changed, err := rewriteRequest(body, server)
		if !bytes.Equal(body, orig) {
			t.Fatal("rewriteRequest modified its input")
		}
		if !json.Valid(body) {
			if !errors.Is(err, ErrInvalidJSON) || changed || emitted != nil || !sameBytes(out, body) {
				t.Fatalf("invalid JSON: rewriteRequest = %q, %v, %v, %v; want the input itself, nil, false, ErrInvalidJSON", out, emitted, changed, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("rewriteRequest: %v", err)
		}
		if !changed && (!sameBytes(out, body) || emitted != nil) {
			t.Fatalf("unchanged: rewriteRequest = %q, %v; want the input itself, nil", out, emitted)
		}
		if changed && (bytes.Equal(out, body) || len(emitted) == 0) {
			t.Fatalf("changed: rewriteRequest = %q, %v; want a different body and emitted names", out, emitted)
		}
		if !json.Valid(out) {
			t.Fatalf("rewriteRequest produced invalid JSON: %q", out)
		}
		// What Wrap streams to the verifier is what rewriteRequest returns.
		edits, _, _ := rewriteEdits(body, server, nil)
		if streamed := readSpliced(t, body, edits); !bytes.Equal(streamed, out) {
			t.Fatalf("streamed %q, rewriteRequest %q", streamed, out)
		}

		want := decodeAny(t, body)
		wantRewrite(want, server)
		if diff := cmp.Diff(want, decodeAny(t, out)); diff != "" {
			t.Fatalf("rewriteRequest(%q, %q) =\n%q\ndecoded (-want +got):\n%s", body, server, out, diff)
		}

		// An echoing verifier's response restores to the very input.
		back, err := restoreResponse(out, emitted)
		if err != nil || !bytes.Equal(back, body) {
			t.Fatalf("restoreResponse(rewriteRequest(x)) = %q, %v; want %q", back, err, body)
		}
	})
}

func FuzzRestoreResponse(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte, callID, name1, name2 string) {
		var names []string
		for _, name := range []string{name1, name2} {
			lit, err := json.Marshal(name)
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, string(lit))
		}
		emitted := emittedNames{callID: names}

		orig := bytes.Clone(body)
		out, err := restoreResponse(body, emitted)
		if !bytes.Equal(body, orig) {
			t.Fatal("restoreResponse modified its input")
		}
		if !json.Valid(body) {
			if !errors.Is(err, ErrInvalidJSON) || !sameBytes(out, body) {
				t.Fatalf("invalid JSON: restoreResponse = %q, %v; want the input itself, ErrInvalidJSON", out, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("restoreResponse: %v", err)
		}
		if bytes.Equal(out, body) && !sameBytes(out, body) {
			t.Fatal("restoreResponse copied a body it did not change")
		}
		if !json.Valid(out) {
			t.Fatalf("restoreResponse produced invalid JSON: %q", out)
		}
		// What Wrap writes to the client is what restoreResponse returns.
		edits, _ := restoreEdits(body, emitted)
		if streamed := readSpliced(t, body, edits); !bytes.Equal(streamed, out) {
			t.Fatalf("streamed %q, restoreResponse %q", streamed, out)
		}

		want := decodeAny(t, body)
		wantRestore(t, want, emitted)
		if diff := cmp.Diff(want, decodeAny(t, out)); diff != "" {
			t.Fatalf("restoreResponse(%q, %q) =\n%q\ndecoded (-want +got):\n%s", body, emitted, out, diff)
		}
	})
}

// readSpliced returns body with edits as a spliced reads it, both ways:
// through Read with a small buffer, and through WriteTo.
func readSpliced(t *testing.T, body []byte, edits []edit) []byte {
	t.Helper()
	sp := newSpliced(body, edits)
	n := sp.Len()
	var read []byte
	buf := make([]byte, 3)
	for {
		m, err := sp.Read(buf)
		read = append(read, buf[:m]...)
		if err == io.EOF {
			break
		}
	}
	var written bytes.Buffer
	newSpliced(body, edits).WriteTo(&written)
	if !bytes.Equal(read, written.Bytes()) || len(read) != n {
		t.Fatalf("Read gave %q, WriteTo %q, Len %d", read, written.Bytes(), n)
	}
	return read
}

// decodeAny decodes valid JSON the way a verifier would, numbers kept exact.
func decodeAny(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %q: %v", data, err)
	}
	return v
}

// functionCalls returns the function_call items with a string name of a
// decoded body's response.output.
func functionCalls(doc any) []map[string]any {
	root, _ := doc.(map[string]any)
	response, _ := root["response"].(map[string]any)
	output, _ := response["output"].([]any)
	var calls []map[string]any
	for _, v := range output {
		item, _ := v.(map[string]any)
		if _, ok := item["name"].(string); ok && item["type"] == "function_call" {
			calls = append(calls, item)
		}
	}
	return calls
}

// wantRewrite applies rewriteRequest's documented rules to a decoded body.
func wantRewrite(doc any, server string) {
	root, _ := doc.(map[string]any)
	provenance, authoritative := root["mcp_tool_call_provenance"].(map[string]any)
	ids := make(map[string]int)
	for _, item := range functionCalls(doc) {
		if id, ok := item["call_id"].(string); ok {
			ids[id]++
		}
	}
	for _, item := range functionCalls(doc) {
		name := item["name"].(string)
		id, hasID := item["call_id"].(string)
		if !authoritative {
			item["name"] = Normalize(name, server)
			continue
		}
		entry, covered := provenance[id].(map[string]any)
		owner, _ := entry["server_name"].(string)
		tool, _ := entry["tool_name"].(string)
		if hasID && covered && ids[id] == 1 && strings.TrimSpace(owner) != "" && strings.TrimSpace(tool) != "" && (server == "" || owner == server) {
			item["name"] = tool
		}
	}
}

// wantRestore applies restoreResponse's documented rules to a decoded body.
func wantRestore(t *testing.T, doc any, emitted emittedNames) {
	used := make(map[string]int)
	for _, item := range functionCalls(doc) {
		id, _ := item["call_id"].(string)
		names := emitted[id]
		if i := used[id]; i < len(names) {
			used[id]++
			var name string
			if err := json.Unmarshal([]byte(names[i]), &name); err != nil {
				t.Fatal(err)
			}
			item["name"] = name
		}
	}
}
