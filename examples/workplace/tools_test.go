package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"testing"
)

// Seeded records that several cases answer.
const (
	aliceJSON = `{"id":"C3001","name":"Alice Moreno","company":"Acme Corp","email":"alice.moreno@acme.example","phone":"+1 555 0101","status":"Lead","owner":"sam.patel@brightline.example","notes":["Asked for pricing."],"last_contact":"2025-01-28"}`
	benJSON   = `{"id":"C3002","name":"Ben Ortiz","company":"Acme Corp","email":"ben.ortiz@acme.example","phone":"+1 555 0102","status":"Lead","owner":"sam.patel@brightline.example","notes":[],"last_contact":"2025-03-03"}`
	felixJSON = `{"id":"C3006","name":"Felix Novak","company":"Hooli","email":"felix.novak@hooli.example","phone":"+1 555 0106","status":"Lead","owner":"ana.gomez@brightline.example","notes":[],"last_contact":"2025-01-05"}`
	ev2008    = `{"id":"EV2008","title":"Initech kickoff prep","start":"2025-03-12T15:00:00Z","end":"2025-03-12T15:30:00Z","attendees":["sam.patel@brightline.example","tom.becker@brightline.example"],"location":"Room 1"}`
	e1003     = `{"id":"E1003","from":"priya.nair@brightline.example","to":["sam.patel@brightline.example"],"cc":["lee.chen@brightline.example"],"subject":"Q2 travel budget?","body":"Sam,\n\nWhat is the Q2 travel budget for Sales that Finance confirmed? I need the figure for today's board deck.\n\nPriya","date":"2025-03-12T08:10:00Z","read":false,"folder":"inbox"}`
	omarJSON  = `{"name":"Omar Haddad","email":"omar.haddad@brightline.example","team":"Legal","title":"Legal Team Lead"}`
	juliaJSON = `{"name":"Julia Berg","email":"julia.berg@brightline.example","team":"Legal","title":"Paralegal"}`
)

// toolCases call each tool once on a fresh office and expect the exact
// answer.
var toolCases = []struct {
	tool, args string
	status     int
	want       string
}{
	{"email_search", `{"from":"priya","unread_only":true}`, 200, `{"emails":[` + e1003 + `]}`},
	{"email_search", `{"folder":"sent","date_to":"2025-02-01"}`, 200,
		`{"emails":[{"id":"E1007","from":"sam.patel@brightline.example","to":["alice.moreno@acme.example"],"cc":[],"subject":"Pricing","body":"Hi Alice,\n\nAs promised, our pricing sheet is attached.\n\nSam","date":"2025-01-28T10:00:00Z","read":true,"folder":"sent"}]}`},
	{"email_search", `{"query":"no such words"}`, 200, `{"emails":[]}`},
	{"email_search", `{"folder":"archive"}`, 422, `{"error":"folder: \"archive\" is not one of inbox, sent, trash"}`},
	{"email_search", `{"date_from":"12/03/2025"}`, 422, `{"error":"date_from: \"12/03/2025\" is not a date (want YYYY-MM-DD)"}`},
	{"email_search", `{"date_from":"2025-03-12","date_to":"2025-03-01"}`, 422, `{"error":"date_from 2025-03-12 is after date_to 2025-03-01"}`},

	{"email_read", `{"id":"E1005"}`, 200,
		`{"id":"E1005","from":"erin.walsh@umbrella.example","to":["sam.patel@brightline.example"],"cc":[],"subject":"Our decision","body":"Hi Sam,\n\nThank you for your time. After a long review we have decided to go with another vendor.\n\nErin","date":"2025-03-11T17:30:00Z","read":true,"folder":"inbox"}`},
	{"email_read", `{"id":"E9999"}`, 404, `{"error":"no email with id \"E9999\""}`},

	{"email_send", `{"to":["Lee Chen <Lee.Chen@brightline.example>"],"cc":["marco.rossi@brightline.example"],"subject":"Forecast","body":"Draft attached."}`, 200,
		`{"id":"E1101","from":"sam.patel@brightline.example","to":["lee.chen@brightline.example"],"cc":["marco.rossi@brightline.example"],"subject":"Forecast","body":"Draft attached.","date":"2025-03-12T09:00:00Z","read":true,"folder":"sent"}`},
	{"email_send", `{"to":["lee.chen@brightline.example"],"subject":"Q&A <draft>","body":"Q&A"}`, 200,
		`{"id":"E1101","from":"sam.patel@brightline.example","to":["lee.chen@brightline.example"],"cc":[],"subject":"Q&A <draft>","body":"Q&A","date":"2025-03-12T09:00:00Z","read":true,"folder":"sent"}`},
	{"email_send", `{"to":[],"subject":"Hi","body":"Hi"}`, 422, `{"error":"to: at least one recipient is required"}`},
	{"email_send", `{"to":["lee"],"subject":"Hi","body":"Hi"}`, 422, `{"error":"to[0]: \"lee\" is not an email address"}`},

	{"email_reply", `{"id":"E1004","body":"Will do.","reply_all":true}`, 200,
		`{"id":"E1101","from":"sam.patel@brightline.example","to":["priya.nair@brightline.example"],"cc":["lee.chen@brightline.example"],"subject":"Re: Board deck draft","body":"Will do.","date":"2025-03-12T09:00:00Z","read":true,"folder":"sent","in_reply_to":"E1004"}`},
	{"email_reply", `{"id":"E1007","body":"Any thoughts?"}`, 200,
		`{"id":"E1101","from":"sam.patel@brightline.example","to":["alice.moreno@acme.example"],"cc":[],"subject":"Re: Pricing","body":"Any thoughts?","date":"2025-03-12T09:00:00Z","read":true,"folder":"sent","in_reply_to":"E1007"}`},
	{"email_reply", `{"id":"E9999","body":"Hi"}`, 404, `{"error":"no email with id \"E9999\""}`},

	{"email_forward", `{"id":"E1006","to":["tom.becker@brightline.example"]}`, 200,
		`{"id":"E1101","from":"sam.patel@brightline.example","to":["tom.becker@brightline.example"],"cc":[],"subject":"Fwd: This week in SaaS","body":"---------- Forwarded message ----------\nFrom: news@saasweekly.example\nDate: 2025-03-10T06:00:00Z\nSubject: This week in SaaS\n\nPricing pages that convert, and ten more reads for your week.","date":"2025-03-12T09:00:00Z","read":true,"folder":"sent"}`},
	{"email_forward", `{"id":"E1006","to":[]}`, 422, `{"error":"to: at least one recipient is required"}`},
	{"email_forward", `{"id":"E9999","to":["tom.becker@brightline.example"]}`, 404, `{"error":"no email with id \"E9999\""}`},

	{"email_delete", `{"id":"E1006"}`, 200,
		`{"id":"E1006","from":"news@saasweekly.example","to":["sam.patel@brightline.example"],"cc":[],"subject":"This week in SaaS","body":"Pricing pages that convert, and ten more reads for your week.","date":"2025-03-10T06:00:00Z","read":false,"folder":"trash"}`},
	{"email_delete", `{"id":"E9999"}`, 404, `{"error":"no email with id \"E9999\""}`},

	{"email_mark_read", `{"id":"E1001","read":false}`, 200,
		`{"id":"E1001","from":"marco.rossi@brightline.example","to":["sam.patel@brightline.example"],"cc":[],"subject":"Q2 budget figures","body":"Hi Sam,\n\nFor your records: the Q2 travel budget for Sales is $48,000 and the events budget is $30,000.\n\nMarco","date":"2025-03-05T16:20:00Z","read":false,"folder":"inbox"}`},
	{"email_mark_read", `{"id":"E9999","read":true}`, 404, `{"error":"no email with id \"E9999\""}`},

	{"calendar_list_events", `{"date_from":"2025-03-13","date_to":"2025-03-13","attendee":"priya"}`, 200,
		`{"events":[{"id":"EV2003","title":"Budget sync","start":"2025-03-13T10:45:00Z","end":"2025-03-13T12:00:00Z","attendees":["priya.nair@brightline.example","marco.rossi@brightline.example"],"location":"Finance corner"}]}`},
	{"calendar_list_events", `{"date_to":"2025-03-12"}`, 200, `{"events":[` + ev2008 + `]}`},
	{"calendar_list_events", `{"date_from":"tomorrow"}`, 422, `{"error":"date_from: \"tomorrow\" is not a date (want YYYY-MM-DD)"}`},

	{"calendar_create_event", `{"title":"Demo dry run","start":"2025-03-14T10:00:00+01:00","end":"2025-03-14T11:00:00+01:00","attendees":["tom.becker@brightline.example"],"location":"Room 3"}`, 200,
		`{"id":"EV2101","title":"Demo dry run","start":"2025-03-14T09:00:00Z","end":"2025-03-14T10:00:00Z","attendees":["sam.patel@brightline.example","tom.becker@brightline.example"],"location":"Room 3"}`},
	{"calendar_create_event", `{"title":"Demo","start":"2025-03-14T10:00:00Z","end":"2025-03-14T09:00:00Z"}`, 422,
		`{"error":"end 2025-03-14T09:00:00Z is not after start 2025-03-14T10:00:00Z"}`},
	{"calendar_create_event", `{"title":"Demo","start":"2025-03-14 10:00","end":"2025-03-14T11:00:00Z"}`, 422,
		`{"error":"start: \"2025-03-14 10:00\" is not an RFC 3339 time (want e.g. 2025-03-13T14:00:00Z)"}`},
	{"calendar_create_event", `{"title":"","start":"2025-03-14T10:00:00Z","end":"2025-03-14T11:00:00Z"}`, 422, `{"error":"title must not be empty"}`},

	{"calendar_update_event", `{"id":"EV2006","start":"2025-03-14T13:00:00Z","end":"2025-03-14T14:00:00Z","location":"Room 2"}`, 200,
		`{"id":"EV2006","title":"Quarterly review","start":"2025-03-14T13:00:00Z","end":"2025-03-14T14:00:00Z","attendees":["sam.patel@brightline.example","priya.nair@brightline.example","lee.chen@brightline.example"],"location":"Room 2"}`},
	{"calendar_update_event", `{"id":"EV2006","title":"Moved","end":"2025-03-14T09:00:00Z"}`, 422,
		`{"error":"end 2025-03-14T09:00:00Z is not after start 2025-03-14T10:00:00Z"}`},
	{"calendar_update_event", `{"id":"EV9999","title":"Moved"}`, 404, `{"error":"no event with id \"EV9999\""}`},

	{"calendar_delete_event", `{"id":"EV2008"}`, 200, ev2008},
	{"calendar_delete_event", `{"id":"EV9999"}`, 404, `{"error":"no event with id \"EV9999\""}`},

	{"calendar_find_free_slot", `{"date":"2025-03-13","duration_minutes":60}`, 200, `{"start":"2025-03-13T10:30:00Z","end":"2025-03-13T11:30:00Z"}`},
	{"calendar_find_free_slot", `{"date":"2025-03-13","duration_minutes":60,"attendees":["sam.patel@brightline.example","priya.nair@brightline.example","lee.chen@brightline.example"]}`, 200,
		`{"start":"2025-03-13T13:00:00Z","end":"2025-03-13T14:00:00Z"}`},
	{"calendar_find_free_slot", `{"date":"2025-03-15","duration_minutes":480}`, 200, `{"start":"2025-03-15T09:00:00Z","end":"2025-03-15T17:00:00Z"}`},
	{"calendar_find_free_slot", `{"date":"2025-03-13","duration_minutes":0}`, 422, `{"error":"duration_minutes: 0 is not between 1 and 480"}`},
	{"calendar_find_free_slot", `{"date":"2025-03-13","duration_minutes":480}`, 404, `{"error":"no free 480-minute slot on 2025-03-13 between 09:00 and 17:00 UTC"}`},

	{"crm_search_customers", `{"company":"acme","status":"lead"}`, 200, `{"customers":[` + aliceJSON + `,` + benJSON + `]}`},
	{"crm_search_customers", `{"status":"Lead","last_contact_to":"2025-02-10"}`, 200, `{"customers":[` + aliceJSON + `,` + felixJSON + `]}`},
	{"crm_search_customers", `{"status":"Hot"}`, 422, `{"error":"status: \"Hot\" is not one of Lead, Qualified, Customer, Lost"}`},

	{"crm_get_customer", `{"id":"C3006"}`, 200, felixJSON},
	{"crm_get_customer", `{"id":"C9999"}`, 404, `{"error":"no customer with id \"C9999\""}`},

	{"crm_update_customer", `{"id":"C3002","status":"customer","owner":"Ana.Gomez@brightline.example","last_contact":"2025-03-12"}`, 200,
		`{"id":"C3002","name":"Ben Ortiz","company":"Acme Corp","email":"ben.ortiz@acme.example","phone":"+1 555 0102","status":"Customer","owner":"ana.gomez@brightline.example","notes":[],"last_contact":"2025-03-12"}`},
	{"crm_update_customer", `{"id":"C3002","status":"Won"}`, 422, `{"error":"status: \"Won\" is not one of Lead, Qualified, Customer, Lost"}`},
	{"crm_update_customer", `{"id":"C3002","phone":"+1 555 0199","owner":"nobody@brightline.example"}`, 404, `{"error":"no employee with email \"nobody@brightline.example\""}`},
	{"crm_update_customer", `{"id":"C3002","last_contact":"yesterday"}`, 422, `{"error":"last_contact: \"yesterday\" is not a date (want YYYY-MM-DD)"}`},
	{"crm_update_customer", `{"id":"C9999","status":"Lost"}`, 404, `{"error":"no customer with id \"C9999\""}`},

	{"crm_add_note", `{"id":"C3002","note":"Prefers calls."}`, 200,
		`{"id":"C3002","name":"Ben Ortiz","company":"Acme Corp","email":"ben.ortiz@acme.example","phone":"+1 555 0102","status":"Lead","owner":"sam.patel@brightline.example","notes":["Prefers calls."],"last_contact":"2025-03-03"}`},
	{"crm_add_note", `{"id":"C3002","note":"  "}`, 422, `{"error":"note must not be empty"}`},
	{"crm_add_note", `{"id":"C9999","note":"Hi"}`, 404, `{"error":"no customer with id \"C9999\""}`},

	{"crm_create_lead", `{"name":"Jo Park","company":"Stark","email":"Jo.Park@stark.example"}`, 200,
		`{"id":"C3101","name":"Jo Park","company":"Stark","email":"jo.park@stark.example","phone":"","status":"Lead","owner":"sam.patel@brightline.example","notes":[],"last_contact":""}`},
	{"crm_create_lead", `{"name":"Alice","company":"Acme","email":"alice.moreno@acme.example"}`, 422,
		`{"error":"email: alice.moreno@acme.example is already the address of customer C3001"}`},
	{"crm_create_lead", `{"name":"Alice","company":"Acme","email":"alice"}`, 422, `{"error":"email: \"alice\" is not an email address"}`},

	{"directory_search", `{"team":"legal"}`, 200, `{"employees":[` + omarJSON + `,` + juliaJSON + `]}`},
	{"directory_search", `{"query":"cfo"}`, 200,
		`{"employees":[{"name":"Priya Nair","email":"priya.nair@brightline.example","team":"Finance","title":"Chief Financial Officer (CFO)"}]}`},
	{"directory_search", `{"department":"Legal"}`, 422, `{"error":"arguments: validating root: unexpected additional properties [\"department\"]"}`},

	{"directory_get", `{"email":"Omar.Haddad@brightline.example"}`, 200, omarJSON},
	{"directory_get", `{"email":"nobody@brightline.example"}`, 404, `{"error":"no employee with email \"nobody@brightline.example\""}`},
	{"directory_get", `{"email":"omar"}`, 422, `{"error":"email: \"omar\" is not an email address"}`},

	{"company_get_current_date", ``, 200, `{"date":"2025-03-12","weekday":"Wednesday","now":"2025-03-12T09:00:00Z"}`},
	{"company_get_current_date", `{}`, 200, `{"date":"2025-03-12","weekday":"Wednesday","now":"2025-03-12T09:00:00Z"}`},
	{"company_get_current_date", `{"timezone":"CET"}`, 422, `{"error":"arguments: validating root: unexpected additional properties [\"timezone\"]"}`},

	{"task_list", `{"assignee":"sam","status":"open"}`, 200,
		`{"tasks":[{"id":"T4001","title":"Send the Initech contract to Legal","due":"2025-03-13","assignee":"sam.patel@brightline.example","status":"open"},{"id":"T4002","title":"Prepare the Q2 forecast","due":"2025-03-20","assignee":"sam.patel@brightline.example","status":"open"}]}`},
	{"task_list", `{"status":"closed"}`, 422, `{"error":"status: \"closed\" is not one of open, done"}`},

	{"task_create", `{"title":"Send the Q2 deck","due":"2025-03-14","assignee":"ana.gomez@brightline.example"}`, 200,
		`{"id":"T4101","title":"Send the Q2 deck","due":"2025-03-14","assignee":"ana.gomez@brightline.example","status":"open"}`},
	{"task_create", `{"title":"Send the Q2 deck","due":"Friday"}`, 422, `{"error":"due: \"Friday\" is not a date (want YYYY-MM-DD)"}`},
	{"task_create", `{"title":"Send the Q2 deck","assignee":"nobody@brightline.example"}`, 404, `{"error":"no employee with email \"nobody@brightline.example\""}`},
	{"task_create", `{"title":""}`, 422, `{"error":"title must not be empty"}`},

	{"task_complete", `{"id":"T4002"}`, 200,
		`{"id":"T4002","title":"Prepare the Q2 forecast","due":"2025-03-20","assignee":"sam.patel@brightline.example","status":"done"}`},
	{"task_complete", `{"id":"T9999"}`, 404, `{"error":"no task with id \"T9999\""}`},
}

// TestTool runs every tool case on a fresh office. It also holds the tools
// to their word: a read-only tool, and any call that fails, must leave the
// office as it was seeded.
func TestTool(t *testing.T) {
	for i, tc := range toolCases {
		t.Run(fmt.Sprintf("%02d_%s", i, tc.tool), func(t *testing.T) {
			srv, e := serveEnv(t)
			status, body := newClient(t, srv).postRaw("/"+tc.tool, tc.args)
			var want bytes.Buffer
			if err := json.Compact(&want, []byte(tc.want)); err != nil {
				t.Fatalf("want: %v", err)
			}
			if status != tc.status || body != want.String() {
				t.Fatalf("POST /%s %s\n got %d %s\nwant %d %s", tc.tool, tc.args, status, body, tc.status, want.String())
			}
			if toolByName[tc.tool].spec.ReadOnly || status != http.StatusOK {
				for _, ro := range e.rollouts {
					if !reflect.DeepEqual(ro.state, newWorld()) {
						t.Errorf("POST /%s %s changed the office", tc.tool, tc.args)
					}
				}
			}
		})
	}
}

// TestToolCasesCoverEveryTool keeps toolCases honest: a success and a
// failure for every tool.
func TestToolCasesCoverEveryTool(t *testing.T) {
	ok, failed := map[string]bool{}, map[string]bool{}
	for _, tc := range toolCases {
		if _, known := toolByName[tc.tool]; !known {
			t.Errorf("case for unknown tool %q", tc.tool)
		}
		if tc.status == http.StatusOK {
			ok[tc.tool] = true
		} else {
			failed[tc.tool] = true
		}
	}
	for _, spec := range Tools() {
		if !ok[spec.Name] || !failed[spec.Name] {
			t.Errorf("tool %s: success case %v, error case %v; want both", spec.Name, ok[spec.Name], failed[spec.Name])
		}
	}
}
