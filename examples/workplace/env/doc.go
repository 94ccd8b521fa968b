// Package env is an office-assistant environment for reinforcement learning,
// in the style of NeMo Gym's workplace_assistant resources server.
//
// An agent plays Sam Patel, an account executive at Brightline, and completes
// office tasks through two dozen tools over one mailbox, a shared calendar, a CRM,
// the employee directory and a task list. Every tool is served by one
// catch-all route, POST /{tool}, which takes the tool's arguments as a JSON
// object and answers a JSON object:
//
//	sessions := session.New(keys, nil)
//	r := chi.NewRouter()
//	r.Use(sessions.Middleware) // the environment keeps one office per session
//	env.New().Routes(r)
//
// A rollout starts with POST /seed_session, which resets the session's office
// to a scenario and answers the task in words; the agent then calls tools;
// POST /verify scores the office it left behind: reward 1.0 when every check
// of the scenario passes, else 0.0, with the checks by name.
//
// Tools lists the tools with their input schemas, derived from the same Go
// types the dispatcher decodes into, so that a server can describe the
// catch-all route as one tool each (over MCP, for example). Scenarios lists
// the scenarios with a known-good sequence of tool calls for each.
//
// The handlers know nothing of MCP.
package env
