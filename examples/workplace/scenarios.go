package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
)

// A Scenario is one task for the agent, in the office every scenario starts
// from.
type Scenario struct {
	// ID names the scenario in POST /seed_session.
	ID string
	// Task is the task in words, for the agent.
	Task string

	// check scores the office the agent left: one named check each for what
	// the task asks, and for what it must not disturb.
	check func(*state) map[string]bool
}

// Scenarios returns the scenarios, the first being the one a session plays
// until it seeds another.
func Scenarios() []Scenario { return slices.Clone(scenarios) }

var scenarios = []Scenario{
	{
		ID: "qualify-stale-lead",
		Task: persona + "Find the lead from Acme whose last contact was more than 30 days ago, mark them Qualified, " +
			"add the note 'Followed up by email' to their record, and send them an email with the subject 'Checking in'.",
		check: func(s *state) map[string]bool {
			alice, _ := s.customer("C3001")
			return map[string]bool{
				"alice_qualified":           alice != nil && alice.Status == "Qualified",
				"note_added":                alice != nil && hasNote(alice, "Followed up by email"),
				"checking_in_sent":          len(s.sent("alice.moreno@acme.example", "Checking in")) > 0,
				"other_customers_untouched": customersUntouched(s, "C3001"),
			}
		},
	},
	{
		ID: "reschedule-quarterly-review",
		Task: persona + "Move the 'Quarterly review' meeting to the first one-hour slot tomorrow (Thursday) when all its attendees are free, " +
			"then email the other attendees with the subject 'Quarterly review moved'.",
		check: func(s *state) map[string]bool {
			// The review is found by title, so that deleting and recreating
			// it passes as well as moving it.
			var reviews []*event
			for _, ev := range s.events {
				if matches(ev.Title, "Quarterly review") {
					reviews = append(reviews, ev)
				}
			}
			moved := len(reviews) == 1 && reviews[0].Start == "2025-03-13T13:00:00Z" && reviews[0].End == "2025-03-13T14:00:00Z"
			return map[string]bool{
				"single_review":            len(reviews) == 1,
				"moved_to_first_free_slot": moved,
				"attendees_kept":           len(reviews) == 1 && sameSet(reviews[0].Attendees, []string{you, cfo, headOfSales}),
				"attendees_emailed":        len(s.sent(cfo, "Quarterly review moved")) > 0 && len(s.sent(headOfSales, "Quarterly review moved")) > 0,
			}
		},
	},
	{
		ID:   "answer-cfo",
		Task: persona + "Read the unread email from our CFO and reply to it with the Q2 travel budget figure that Finance sent you earlier this month.",
		check: func(s *state) map[string]bool {
			question, _ := s.email("E1003")
			var replies []*email
			for _, m := range s.emails {
				if m.Folder == folderSent && m.InReplyTo == "E1003" && slices.Contains(m.To, cfo) {
					replies = append(replies, m)
				}
			}
			return map[string]bool{
				"cfo_email_read": question != nil && question.Read,
				"replied_to_cfo": len(replies) > 0,
				"reply_has_figure": slices.ContainsFunc(replies, func(m *email) bool {
					return strings.Contains(m.Body, "48,000") || strings.Contains(m.Body, "48000")
				}),
			}
		},
	},
	{
		ID: "add-conference-lead",
		Task: persona + "You met Jordan Blake from Globex at LogiConf (jordan.blake@globex.example, +1 555 0142). " +
			"Add them to the CRM as your lead with the note 'Met at LogiConf', create a task 'Follow up with Jordan Blake' due next Monday, " +
			"and book a 30-minute event 'Intro call: Globex' with them this Friday at 15:00 UTC.",
		check: func(s *state) map[string]bool {
			const jordan = "jordan.blake@globex.example"
			var lead *customer
			if i := slices.IndexFunc(s.customers, func(c *customer) bool { return c.Email == jordan }); i >= 0 {
				lead = s.customers[i]
			}
			return map[string]bool{
				"lead_created": lead != nil && matches(lead.Name, "Jordan Blake") && containsFold(lead.Company, "Globex") &&
					lead.Status == "Lead" && lead.Owner == you && digits(lead.Phone) == "15550142",
				"note_added": lead != nil && hasNote(lead, "Met at LogiConf"),
				"follow_up_task": slices.ContainsFunc(s.tasks, func(t *task) bool {
					return matches(t.Title, "Follow up with Jordan Blake") && t.Due == "2025-03-17" && t.Assignee == you && t.Status == taskOpen
				}),
				"intro_call_booked": slices.ContainsFunc(s.events, func(ev *event) bool {
					return matches(ev.Title, "Intro call: Globex") && ev.Start == "2025-03-14T15:00:00Z" &&
						ev.End == "2025-03-14T15:30:00Z" && slices.Contains(ev.Attendees, jordan)
				}),
			}
		},
	},
	{
		ID:   "forward-contract-to-legal",
		Task: persona + "Forward the signed contract that Initech emailed you to the lead of the Legal team, then complete your task about sending it to Legal.",
		check: func(s *state) map[string]bool {
			contract, _ := s.email("E1002")
			forwarded := false
			for _, m := range s.emails {
				if m.Folder == folderSent && slices.Contains(m.recipients(), legalLead) && contract != nil && strings.Contains(m.Body, contract.Body) {
					forwarded = true
				}
			}
			done, _ := s.task("T4001")
			return map[string]bool{
				"forwarded_to_legal_lead": forwarded,
				"task_completed":          done != nil && done.Status == taskDone,
				"other_tasks_untouched":   tasksUntouched(s, "T4001"),
			}
		},
	},
	{
		ID:   "close-lost-deal",
		Task: persona + "Umbrella Corp has chosen another vendor. Mark them Lost in the CRM with the note 'Chose a competitor', and cancel the upcoming 'Umbrella demo' on your calendar.",
		check: func(s *state) map[string]bool {
			umbrella, _ := s.customer("C3005")
			_, err := s.event("EV2007")
			return map[string]bool{
				"umbrella_lost":     umbrella != nil && umbrella.Status == "Lost",
				"note_added":        umbrella != nil && hasNote(umbrella, "Chose a competitor"),
				"demo_cancelled":    err != nil,
				"other_events_kept": eventsUntouched(s, "EV2007"),
			}
		},
	},
}

// scenario returns the scenario with the given id.
func scenario(id string) (*Scenario, bool) {
	i := slices.IndexFunc(scenarios, func(sc Scenario) bool { return sc.ID == id })
	if i < 0 {
		return nil, false
	}
	return &scenarios[i], true
}

// seedSession serves POST /seed_session: it resets the session's office to
// the scenario the body names (the first one when it names none) and answers
// the task.
func (e *Env) seedSession(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r, maxArgs)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	var req struct {
		Scenario string `json:"scenario"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, `want a body like {"scenario": "<id>"}: `+err.Error())
		return
	}
	sc := &scenarios[0]
	if req.Scenario != "" {
		var ok bool
		if sc, ok = scenario(req.Scenario); !ok {
			ids := make([]string, len(scenarios))
			for i, sc := range scenarios {
				ids[i] = sc.ID
			}
			writeJSON(w, http.StatusBadRequest, map[string]any{
				"error":     fmt.Sprintf("unknown scenario %q; known: %s", req.Scenario, strings.Join(ids, ", ")),
				"scenarios": ids,
			})
			return
		}
	}
	if err := e.seed(r, sc); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"scenario": sc.ID, "task": sc.Task})
}

// The checks compare what an agent wrote the way a person reading it would:
// ignoring case and surrounding space.

func matches(got, want string) bool {
	return strings.EqualFold(strings.TrimSpace(got), want)
}

func hasNote(c *customer, note string) bool {
	return slices.ContainsFunc(c.Notes, func(n string) bool { return matches(n, note) })
}

// sent returns the emails you sent to addr, in to or cc, with the subject.
func (s *state) sent(addr, subject string) []*email {
	var found []*email
	for _, m := range s.emails {
		if m.Folder == folderSent && slices.Contains(m.recipients(), addr) && matches(m.Subject, subject) {
			found = append(found, m)
		}
	}
	return found
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// digits keeps the digits of a phone number, so that "+1 555 0142" and
// "+1-555-0142" are one number.
func digits(phone string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, phone)
}

// The untouched checks hold a scenario to the records it names: every other
// seeded record must be as it was, so that an agent cannot pass by changing
// everything in sight.

func customersUntouched(s *state, except string) bool {
	return untouched(s.customers, newWorld().customers, except, func(c *customer) string { return c.ID })
}

func eventsUntouched(s *state, except string) bool {
	return untouched(s.events, newWorld().events, except, func(ev *event) string { return ev.ID })
}

func tasksUntouched(s *state, except string) bool {
	return untouched(s.tasks, newWorld().tasks, except, func(t *task) string { return t.ID })
}

func untouched[T any](current, seeded []*T, except string, id func(*T) string) bool {
	for _, want := range seeded {
		if id(want) == except {
			continue
		}
		i := slices.IndexFunc(current, func(got *T) bool { return id(got) == id(want) })
		if i < 0 || !reflect.DeepEqual(current[i], want) {
			return false
		}
	}
	return true
}
