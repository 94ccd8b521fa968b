package main

// The office-assistant environment for reinforcement learning,
// in the style of NeMo Gym's workplace_assistant resources server.
//
// An agent plays Sam Patel, an account executive at Brightline, and completes
// office tasks through two dozen tools over one mailbox, a shared calendar, a CRM,
// the employee directory and a task list. Every tool is served by one
// catch-all route, POST /{tool}, which takes the tool's arguments as a JSON
// object and answers a JSON object:
//
//	sessions, err := cfg.UseSessions() // the door's session manager
//	...
//	r := chi.NewRouter()
//	r.Use(sessions.Middleware) // the environment keeps one office per session
//	newStoredEnv().Routes(r)
//
// A rollout starts with POST /seed_session, which resets the session's office
// to a scenario and answers the task in words; the agent then calls tools;
// POST /verify scores the office it left behind: reward 1.0 when every check
// of the scenario passes, else 0.0, with the checks by name.
//
// Tools lists the tools with their input schemas, derived from the same Go
// types the dispatcher decodes into, so that a server can describe the
// catch-all route as one tool each (over MCP, for example). Scenarios lists
// the scenarios; testdata/solutions.json holds a known-good sequence of
// tool calls for each, which the tests play.
//
// The handlers know nothing of MCP.

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/mcpdoor/mcpdoor/session"
)

// Env is the environment: one office per session. It is safe for concurrent
// use, and parallel calls of one session lose nothing.
//
// An Env made by newEnv keeps its offices in its own memory, and runs the
// calls of one session one at a time. One made by newStoredEnv keeps them
// in the session store, so that with a store every replica shares
// (session/redisstore), any replica serves any call of a rollout: a call
// that changes the office changes it with session.Update, which, when a
// parallel call of the session (on this replica or another) changed it
// first, runs the call again on the office that call left.
type Env struct {
	mu       sync.Mutex
	rollouts map[string]*rollout // by session id; nil for an Env whose offices are in the session store
}

// newEnv returns an Env with no sessions yet, its offices in its memory.
func newEnv() *Env {
	return &Env{rollouts: make(map[string]*rollout)}
}

// newStoredEnv returns an Env whose offices are in the session store.
func newStoredEnv() *Env { return &Env{} }

// Routes registers the environment on r: POST /seed_session, POST /verify,
// and POST /{tool}, the one route that serves every tool of Tools.
//
// The session id comes from session.ID, so r must run the session
// middleware; without it every request shares one office.
func (e *Env) Routes(r chi.Router) {
	r.Post("/seed_session", e.seedSession)
	r.Post("/verify", e.verify)
	r.Post("/{tool}", e.dispatch)
}

// A rollout is one session's attempt at a scenario: the scenario it was
// seeded with and the office as the agent has left it so far.
type rollout struct {
	mu       sync.Mutex
	scenario *Scenario
	state    *state
}

// with runs f on the request's rollout, and keeps what f changed when write
// is set. A session that calls a tool before seeding plays the first
// scenario, so that a client that never seeds still meets a populated
// office. In the session store, a call that writes may run f more than
// once (see session.Update): f must answer from the rollout it was given
// last.
func (e *Env) with(r *http.Request, write bool, f func(*rollout)) error {
	if e.rollouts != nil {
		id := session.ID(r)
		e.mu.Lock()
		ro, ok := e.rollouts[id]
		if !ok {
			ro = &rollout{scenario: &scenarios[0], state: newWorld()}
			e.rollouts[id] = ro
		}
		e.mu.Unlock()
		ro.mu.Lock()
		defer ro.mu.Unlock()
		f(ro)
		return nil
	}
	if !write {
		var saved office
		found, err := session.Load(r, officeKey, &saved)
		if err != nil {
			return err
		}
		ro, err := saved.rolloutOr(found)
		if err != nil {
			return err
		}
		f(ro)
		return nil
	}
	return session.Update(r, officeKey, func(o *office) error {
		ro, err := o.rolloutOr(o.Scenario != "")
		if err != nil {
			return err
		}
		f(ro)
		*o = officeOf(ro)
		return nil
	})
}

// rolloutOr returns the rollout of the office, when found, else a fresh
// office of the first scenario.
func (o office) rolloutOr(found bool) (*rollout, error) {
	if !found {
		return &rollout{scenario: &scenarios[0], state: newWorld()}, nil
	}
	return o.rollout()
}

// seed starts the request's session over on sc. A call of the previous
// rollout still running finishes on the old office, which nothing reads
// afterwards.
func (e *Env) seed(r *http.Request, sc *Scenario) error {
	ro := &rollout{scenario: sc, state: newWorld()}
	if e.rollouts == nil {
		return session.Save(r, officeKey, officeOf(ro))
	}
	e.mu.Lock()
	e.rollouts[session.ID(r)] = ro
	e.mu.Unlock()
	return nil
}

// officeKey is the key of a session's office in the session store.
const officeKey = "office"

// An office is a rollout as the session store keeps it, in JSON.
type office struct {
	Scenario  string         `json:"scenario"`
	Emails    []*email       `json:"emails"`
	Events    []*event       `json:"events"`
	Customers []*customer    `json:"customers"`
	Employees []employee     `json:"employees"`
	Tasks     []*task        `json:"tasks"`
	Seq       map[string]int `json:"seq"`
}

func officeOf(ro *rollout) office {
	s := ro.state
	return office{Scenario: ro.scenario.ID, Emails: s.emails, Events: s.events, Customers: s.customers, Employees: s.employees, Tasks: s.tasks, Seq: s.seq}
}

func (o office) rollout() (*rollout, error) {
	sc, ok := scenario(o.Scenario)
	if !ok {
		return nil, fmt.Errorf("the session's office is of an unknown scenario %q", o.Scenario)
	}
	seq := o.Seq
	if seq == nil {
		seq = map[string]int{}
	}
	return &rollout{scenario: sc, state: &state{emails: o.Emails, events: o.Events, customers: o.Customers, employees: o.Employees, tasks: o.Tasks, seq: seq}}, nil
}

// state is one office. Records are kept by pointer so that tools change them
// in place; the dispatcher encodes a tool's answer before it lets go of the
// rollout, so no answer is read while another call writes.
type state struct {
	emails    []*email
	events    []*event
	customers []*customer
	employees []employee
	tasks     []*task
	seq       map[string]int // the last number used per id prefix
}

// newID returns a fresh id with the given prefix, such as "E1101".
func (s *state) newID(prefix string) string {
	s.seq[prefix]++
	return fmt.Sprintf("%s%d", prefix, s.seq[prefix])
}
