package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// toolResult returns what an MCP client makes of a tools/call response:
// the result's content, structuredContent and isError, as canonical JSON
// (object keys sorted). It reads a JSON body or an SSE stream, whose last
// message with a result or an error is the answer. For the raw floor
// (mcp false) the body itself is the structured content.
func toolResult(mcp bool, resp *http.Response, body []byte) (string, error) {
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, body)
	}
	if !mcp {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return "", fmt.Errorf("not JSON: %.200s", body)
		}
		return canonical(v)
	}
	msg := body
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		msg = nil
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(nil, len(body)+1)
		for sc.Scan() {
			if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
				data = bytes.TrimSpace(data)
				if bytes.Contains(data, []byte(`"result"`)) || bytes.Contains(data, []byte(`"error"`)) {
					msg = append(msg[:0], data...)
				}
			}
		}
		if msg == nil {
			return "", fmt.Errorf("no response message in the event stream: %.200s", body)
		}
	}
	var rpc struct {
		Result *struct {
			Content           any  `json:"content"`
			StructuredContent any  `json:"structuredContent,omitempty"`
			IsError           bool `json:"isError,omitempty"`
		} `json:"result"`
		Error any `json:"error"`
	}
	if err := json.Unmarshal(msg, &rpc); err != nil {
		return "", fmt.Errorf("not a JSON-RPC response: %.200s", msg)
	}
	if rpc.Result == nil {
		return "", fmt.Errorf("no result: %.200s", msg)
	}
	return canonical(rpc.Result)
}

// canonical renders v as JSON with object keys sorted.
func canonical(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		return "", err
	}
	b, err = json.Marshal(generic) // maps marshal with sorted keys
	return string(b), err
}

// wantResult is what every contender must answer for the echo of text.
func wantResult(mcp bool, text string) string {
	out, _ := json.Marshal(echoOut{Text: text})
	if !mcp {
		return string(out)
	}
	res, err := canonical(map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": string(out)}},
		"structuredContent": echoOut{Text: text},
	})
	if err != nil {
		panic(err)
	}
	return res
}

// mismatch describes where got first differs from want, with some context
// either side: enough to read a difference in a 1 MiB answer.
func mismatch(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(i-60, 0)
	return fmt.Sprintf("differs at byte %d of %d (want %d):\n got …%s…\nwant …%s…",
		i, len(got), len(want), got[from:min(i+60, len(got))], want[from:min(i+60, len(want))])
}
