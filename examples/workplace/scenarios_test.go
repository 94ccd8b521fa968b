package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestScenarioSolutions(t *testing.T) {
	if len(Scenarios()) < 5 {
		t.Errorf("%d scenarios, want at least 5", len(Scenarios()))
	}
	srv, _ := serveEnv(t)
	playSolutions(t, srv)
}

// TestScenarioSolutionsStored: the offices of an Env kept in the session
// store (as the server keeps them) score the same.
func TestScenarioSolutionsStored(t *testing.T) {
	playSolutions(t, serveEnvOf(t, newStoredEnv()))
}

// playSolutions plays each scenario's solution on srv, expecting reward 1.
func playSolutions(t *testing.T, srv *httptest.Server) {
	for _, sc := range Scenarios() {
		t.Run(sc.ID, func(t *testing.T) {
			if n := len(solution(t, sc.ID)); n < 2 || n > 5 {
				t.Errorf("solution has %d calls, want 2 to 5", n)
			}
			got := newClient(t, srv).play(sc.ID, solution(t, sc.ID))
			if got["reward"] != 1.0 {
				t.Errorf("reward %v, checks %v", got["reward"], got["checks"])
			}
		})
	}
}

// drop removes the calls of a tool from a solution.
func drop(tool string) func([]Call) []Call {
	return func(calls []Call) []Call {
		return slices.DeleteFunc(slices.Clone(calls), func(c Call) bool { return c.Tool == tool })
	}
}

// set changes an argument of the calls of a tool.
func set(tool, key string, value any) func([]Call) []Call {
	return func(calls []Call) []Call {
		out := slices.Clone(calls)
		for i, c := range out {
			if c.Tool == tool {
				out[i].Arguments = maps.Clone(c.Arguments)
				out[i].Arguments[key] = value
			}
		}
		return out
	}
}

// TestScenarioWrongSolutions spoils each solution and expects reward 0.0
// with the check that catches it failed.
func TestScenarioWrongSolutions(t *testing.T) {
	tests := []struct {
		scenario string
		spoil    func([]Call) []Call
		failed   string
	}{
		{"qualify-stale-lead", drop("email_send"), "checking_in_sent"},
		{"qualify-stale-lead", drop("crm_add_note"), "note_added"},
		{"qualify-stale-lead", set("crm_update_customer", "id", "C3002"), "other_customers_untouched"},
		{"qualify-stale-lead", set("crm_update_customer", "id", "C3002"), "alice_qualified"},
		{"reschedule-quarterly-review", set("calendar_update_event", "start", "2025-03-13T10:30:00Z"), "moved_to_first_free_slot"},
		{"reschedule-quarterly-review", set("email_send", "to", []string{cfo}), "attendees_emailed"},
		{"reschedule-quarterly-review", set("calendar_update_event", "attendees", []string{you}), "attendees_kept"},
		{"answer-cfo", drop("email_read"), "cfo_email_read"},
		{"answer-cfo", set("email_reply", "body", "Hi Priya, it is $30,000."), "reply_has_figure"},
		{"answer-cfo", set("email_reply", "id", "E1004"), "replied_to_cfo"},
		{"add-conference-lead", drop("task_create"), "follow_up_task"},
		{"add-conference-lead", set("task_create", "due", "2025-03-24"), "follow_up_task"},
		{"add-conference-lead", set("crm_create_lead", "note", "Met at a conference"), "note_added"},
		{"add-conference-lead", set("calendar_create_event", "end", "2025-03-14T16:00:00Z"), "intro_call_booked"},
		{"forward-contract-to-legal", set("email_forward", "to", []string{"julia.berg@brightline.example"}), "forwarded_to_legal_lead"},
		{"forward-contract-to-legal", drop("task_complete"), "task_completed"},
		{"forward-contract-to-legal", set("task_complete", "id", "T4002"), "other_tasks_untouched"},
		{"close-lost-deal", drop("calendar_delete_event"), "demo_cancelled"},
		{"close-lost-deal", set("calendar_delete_event", "id", "EV2008"), "other_events_kept"},
		{"close-lost-deal", set("crm_update_customer", "status", "Customer"), "umbrella_lost"},
	}
	srv, _ := serveEnv(t)
	for _, tt := range tests {
		t.Run(tt.scenario+"/"+tt.failed, func(t *testing.T) {
			sc, ok := scenario(tt.scenario)
			if !ok {
				t.Fatalf("no scenario %q", tt.scenario)
			}
			got := newClient(t, srv).play(sc.ID, tt.spoil(solution(t, sc.ID)))
			checks, _ := got["checks"].(map[string]any)
			if got["reward"] != 0.0 || checks[tt.failed] != false {
				t.Errorf("reward %v, checks %v; want 0 with %s false", got["reward"], checks, tt.failed)
			}
		})
	}
}

func TestSeedSession(t *testing.T) {
	srv, _ := serveEnv(t)
	c := newClient(t, srv)
	first := Scenarios()[0]
	want, _ := json.Marshal(map[string]string{"scenario": first.ID, "task": first.Task})
	for _, body := range []string{``, `{}`, `{"scenario":""}`} {
		if status, got := c.postRaw("/seed_session", body); status != http.StatusOK || got != string(want) {
			t.Errorf("seed with %q: %d %s, want the first scenario", body, status, got)
		}
	}
	got := c.post("/seed_session", map[string]string{"scenario": "answer-cfo"})
	if got["scenario"] != "answer-cfo" || !strings.Contains(got["task"].(string), "CFO") {
		t.Errorf("seed answer-cfo: %v", got)
	}

	var ids []string
	for _, sc := range Scenarios() {
		ids = append(ids, sc.ID)
	}
	status, body := c.postRaw("/seed_session", `{"scenario":"nope"}`)
	wantErr := fmt.Sprintf(`{"error":"unknown scenario \"nope\"; known: %s","scenarios":["%s"]}`,
		strings.Join(ids, ", "), strings.Join(ids, `","`))
	if status != http.StatusBadRequest || body != wantErr {
		t.Errorf("unknown scenario:\n got %d %s\nwant 400 %s", status, body, wantErr)
	}
	if status, body := c.postRaw("/seed_session", `scenario=answer-cfo`); status != http.StatusBadRequest {
		t.Errorf("not JSON: %d %s", status, body)
	}
}

func TestSeedSessionResets(t *testing.T) {
	srv, _ := serveEnv(t)
	c := newClient(t, srv)
	sc := Scenarios()[0]
	if got := c.play(sc.ID, solution(t, sc.ID)); got["reward"] != 1.0 {
		t.Fatalf("solution: %v", got)
	}
	c.post("/seed_session", map[string]string{"scenario": sc.ID})
	if got := c.post("/verify", map[string]any{}); got["reward"] != 0.0 {
		t.Errorf("after reseeding, reward %v, want 0", got["reward"])
	}
}

func TestVerify(t *testing.T) {
	srv, _ := serveEnv(t)
	c := newClient(t, srv)
	sc, _ := scenario("answer-cfo")
	c.play(sc.ID, solution(t, sc.ID))

	req := `{"responses_create_params":{"input":[],"seed":12345678901234567890,"temperature":0.70},"response":{"output":[{"type":"function_call","name":"email_reply","arguments":"{}"}]},"reward":0.5}`
	status, body := c.postRaw("/verify", req)
	want := `{"checks":{"cfo_email_read":true,"replied_to_cfo":true,"reply_has_figure":true},` +
		`"response":{"output":[{"arguments":"{}","name":"email_reply","type":"function_call"}]},"responses_create_params":{"input":[],"seed":12345678901234567890,"temperature":0.70},"reward":1}`
	if status != http.StatusOK || body != want {
		t.Errorf("verify:\n got %d %s\nwant 200 %s", status, body, want)
	}
	for _, bad := range []string{`[]`, `null`, `"x"`, `{`, `{} {}`} {
		if status, body := c.postRaw("/verify", bad); status != http.StatusBadRequest {
			t.Errorf("verify %s: %d %s, want 400", bad, status, body)
		}
	}
}

// TestVerifyUnseeded: a session that never seeded plays the first scenario,
// untouched.
func TestVerifyUnseeded(t *testing.T) {
	srv, _ := serveEnv(t)
	got := newClient(t, srv).post("/verify", map[string]any{})
	checks := got["checks"].(map[string]any)
	want := Scenarios()[0].check(newWorld())
	if got["reward"] != 0.0 || len(checks) != len(want) {
		t.Errorf("verify before seeding: %v", got)
	}
}

func TestSessionsAreIndependent(t *testing.T) {
	srv, _ := serveEnv(t)
	a, b := newClient(t, srv), newClient(t, srv)
	a.post("/seed_session", map[string]string{"scenario": "close-lost-deal"})
	b.post("/seed_session", map[string]string{"scenario": "close-lost-deal"})

	a.post("/calendar_delete_event", map[string]any{"id": "EV2007"})
	a.post("/email_delete", map[string]any{"id": "E1005"})
	if status, _ := b.postRaw("/calendar_delete_event", `{"id":"EV2007"}`); status != http.StatusOK {
		t.Errorf("b cannot delete the event a deleted: %d", status)
	}
	if folder := b.post("/email_read", map[string]any{"id": "E1005"})["folder"]; folder != folderInbox {
		t.Errorf("b sees E1005 in %v", folder)
	}
	if status, _ := a.postRaw("/calendar_delete_event", `{"id":"EV2007"}`); status != http.StatusNotFound {
		t.Errorf("a deleted EV2007 twice: %d", status)
	}

	sc, _ := scenario("qualify-stale-lead")
	if got := a.play(sc.ID, solution(t, sc.ID)); got["reward"] != 1.0 {
		t.Errorf("a: reward %v", got["reward"])
	}
	if got := b.post("/verify", map[string]any{}); got["reward"] != 0.0 {
		t.Errorf("b, on close-lost-deal, scored %v", got["reward"])
	}
}

// TestConcurrentSessions plays 16 sessions at once; run it with -race.
func TestConcurrentSessions(t *testing.T) {
	srv, _ := serveEnv(t)
	scs := Scenarios()
	var wg sync.WaitGroup
	for i := range 16 {
		sc := scs[i%len(scs)]
		c := newClient(t, srv)
		wg.Go(func() {
			for range 3 {
				if got := c.play(sc.ID, solution(t, sc.ID)); got["reward"] != 1.0 {
					t.Errorf("session %d, %s: reward %v, checks %v", i, sc.ID, got["reward"], got["checks"])
				}
			}
		})
	}
	wg.Wait()
}
