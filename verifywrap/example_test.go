package verifywrap_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpdoor/mcpdoor/verifywrap"
)

func ExampleNormalize() {
	fmt.Println(verifywrap.Normalize("mcp__weather__get_weather", "weather"))
	fmt.Println(verifywrap.Normalize("mcp__other__get_weather", "weather"))
	fmt.Println(verifywrap.Normalize("get_weather", "weather"))
	fmt.Println(verifywrap.Normalize("mcp__store__ns__tool", ""))
	fmt.Println(verifywrap.Normalize("mcp__dangling", ""))
	// Output:
	// get_weather
	// mcp__other__get_weather
	// get_weather
	// ns__tool
	// mcp__dangling
}

func ExampleWrap() {
	// verify knows its tools by their bare names. It echoes the trajectory
	// back with a reward.
	verify := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Response json.RawMessage `json:"response"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad trajectory", http.StatusBadRequest)
			return
		}
		fmt.Printf("verifier saw: %s\n", req.Response)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"reward": 1.0, "response": %s}`, req.Response)
	})
	h := verifywrap.Wrap(verify, "weather", nil)

	body := `{"response": {"output": [{"type": "function_call", "call_id": "c1", "name": "mcp__weather__get_weather", "arguments": "{\"city\": \"Paris\"}"}]}}`
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/verify", strings.NewReader(body)))
	fmt.Printf("client got: %s\n", rec.Body)
	// Output:
	// verifier saw: {"output": [{"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}]}
	// client got: {"reward": 1.0, "response": {"output": [{"type": "function_call", "call_id": "c1", "name": "mcp__weather__get_weather", "arguments": "{\"city\": \"Paris\"}"}]}}
}
