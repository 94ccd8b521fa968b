package main

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// verify serves POST /verify: it scores the session's office against its
// scenario's checks and answers the request body with "reward" (1.0 when
// every check passes, else 0.0) and "checks" added, as NeMo Gym's verify
// echoes its request. The trajectory in the body is not read: the office
// the agent left is the evidence.
func (e *Env) verify(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(w, r, maxVerifyBody)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	// Numbers decode as json.Number, so that the echo keeps them as sent.
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var resp map[string]any
	if err := dec.Decode(&resp); err != nil || resp == nil || dec.More() {
		writeError(w, http.StatusBadRequest, "body is not a JSON object")
		return
	}
	var checks map[string]bool
	if err := e.with(r, false, func(ro *rollout) { checks = ro.scenario.check(ro.state) }); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	reward := 1.0
	for _, ok := range checks {
		if !ok {
			reward = 0
		}
	}
	resp["reward"] = reward
	resp["checks"] = checks
	writeJSON(w, http.StatusOK, resp)
}
