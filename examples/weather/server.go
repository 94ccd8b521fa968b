package main

// The weather server: NeMo Gym's example_mcp_weather ported to Go. Typed
// tool routes, a per-session record of the cities asked about,
// /seed_session, and a /verify that pays reward 1.0 when the rollout asked
// for the weather.
//
// The handlers know nothing of MCP: mcpdoor serves them over both doors.
// (forecast reports its progress with autoexpose.Progress, which does
// nothing for an HTTP caller.)

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"

	"github.com/mcpdoor/mcpdoor/autoexpose"
	"github.com/mcpdoor/mcpdoor/session"
)

// WeatherRequest is the input of get_weather.
type WeatherRequest struct {
	City string `json:"city" jsonschema:"the city to get the weather for"`
}

// WeatherReply is the output of get_weather.
type WeatherReply struct {
	Weather string `json:"weather" jsonschema:"a sentence about the weather"`
}

// ForecastRequest is the input of forecast.
type ForecastRequest struct {
	City string `json:"city" jsonschema:"the city to forecast"`
	Days int    `json:"days" jsonschema:"how many days ahead, 1 to 7"`
}

// ForecastReply is the output of forecast.
type ForecastReply struct {
	Days []string `json:"days" jsonschema:"one sentence per day"`
}

// CitiesReply is the output of list_cities.
type CitiesReply struct {
	Cities []string `json:"cities" jsonschema:"the cities asked about in this session, in order"`
}

// Server serves the weather. Each session's state — the cities asked about,
// in order — is in the session store (session.Load, session.Save): in
// memory, or in a store every replica shares (cfg.Store).
type Server struct {
	// mu makes a session's read-modify-write of its cities whole on this
	// replica.
	mu sync.Mutex
}

// citiesKey is the key of a session's cities in the session store.
const citiesKey = "cities"

// newServer builds the router (routes first, then autoexpose.Install) and
// returns the installed MCP door: what to serve (it serves the router), and
// what to close.
func newServer(cfg autoexpose.Config) (*autoexpose.Door, error) {
	r, err := newRouter(&cfg)
	if err != nil {
		return nil, err
	}
	return autoexpose.Install(r, cfg)
}

// newRouter builds the router alone, for autoexpose.ServeStdio. It makes
// cfg's sessions (cfg.UseSessions: the router's session middleware) and,
// when unset, sets cfg.MCP.Rollout.AllowedTools, so that cfg serves the
// router's sessions.
func newRouter(cfg *autoexpose.Config) (chi.Router, error) {
	sessions, err := cfg.UseSessions()
	if err != nil {
		return nil, err
	}
	if cfg.MCP.Rollout.AllowedTools == nil {
		cfg.MCP.Rollout.AllowedTools = allowedTools
	}
	s := &Server{}

	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	// Each route's span, under the MCP call's when mcpdoor dispatches it:
	// a middleware mcpdoor does not know, so tool calls replay through it.
	r.Use(otelhttp.NewMiddleware("weather"))
	r.Use(sessions.Middleware)
	r.Method(http.MethodPost, "/get_weather", autoexpose.Handler(s.getWeather,
		autoexpose.Describe("Get the current weather in a city.")))
	r.Method(http.MethodPost, "/forecast", autoexpose.Handler(s.forecast,
		autoexpose.Describe("Forecast the weather in a city, day by day.")))
	r.Method(http.MethodPost, "/list_cities", autoexpose.Handler(s.listCities,
		autoexpose.Describe("List the cities asked about in this session, in order.")))
	r.Post("/seed_session", s.seedSession)
	r.Post("/verify", s.verify)
	return r, nil
}

func (s *Server) getWeather(_ context.Context, r *http.Request, in WeatherRequest) (WeatherReply, error) {
	if in.City == "" {
		return WeatherReply{}, autoexpose.Error(http.StatusBadRequest, "city must not be empty")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var cities []string
	if _, err := session.Load(r, citiesKey, &cities); err != nil {
		return WeatherReply{}, err
	}
	if err := session.Save(r, citiesKey, append(cities, in.City)); err != nil {
		return WeatherReply{}, err
	}
	return WeatherReply{Weather: fmt.Sprintf("The weather in %s is sunny and 72 F.", in.City)}, nil
}

// forecast works day by day, telling an MCP client that asked for progress
// how far it has got; over HTTP, autoexpose.Progress does nothing.
func (s *Server) forecast(ctx context.Context, _ *http.Request, in ForecastRequest) (ForecastReply, error) {
	if in.Days < 1 || in.Days > 7 {
		return ForecastReply{}, autoexpose.Error(http.StatusBadRequest, "days must be 1 to 7")
	}
	var out ForecastReply
	for day := 1; day <= in.Days; day++ {
		autoexpose.Progress(ctx, float64(day), float64(in.Days), fmt.Sprintf("day %d of %d", day, in.Days))
		out.Days = append(out.Days, fmt.Sprintf("Day %d in %s: sunny and 72 F.", day, in.City))
	}
	return out, nil
}

func (s *Server) listCities(_ context.Context, r *http.Request, _ struct{}) (CitiesReply, error) {
	cities := []string{}
	_, err := session.Load(r, citiesKey, &cities)
	return CitiesReply{Cities: cities}, err
}

// seedSession starts a rollout: a fresh, empty record for the session.
func (s *Server) seedSession(w http.ResponseWriter, r *http.Request) {
	if err := session.Save(r, citiesKey, []string{}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte("{}"))
}

// verify scores a rollout: reward 1.0 when the session asked for the weather
// and the trajectory's output has a get_weather call, else 0.0. It echoes
// the request with the reward added, as NeMo Gym's verify does.
func (s *Server) verify(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "verify: request body is not a JSON object", http.StatusBadRequest)
		return
	}
	var cities []string
	if _, err := session.Load(r, citiesKey, &cities); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	asked := len(cities) > 0
	reward := 0.0
	if asked && slices.Contains(functionCalls(body), "get_weather") {
		reward = 1.0
	}
	body["reward"] = reward
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

// allowedTools reads a rollout's allow-list from the body posted to
// /seed_session: {"allowed_tools": ["get_weather"]}. No body, or no
// allowed_tools key, allows every tool.
func allowedTools(seedBody []byte) ([]string, error) {
	if len(bytes.TrimSpace(seedBody)) == 0 {
		return nil, nil
	}
	var seed struct {
		AllowedTools []string `json:"allowed_tools"`
	}
	if err := json.Unmarshal(seedBody, &seed); err != nil {
		return nil, fmt.Errorf("seed body: %w", err)
	}
	return seed.AllowedTools, nil
}

// functionCalls returns the names of the function_call items in
// response.output.
func functionCalls(body map[string]any) []string {
	resp, _ := body["response"].(map[string]any)
	output, _ := resp["output"].([]any)
	var names []string
	for _, item := range output {
		if m, ok := item.(map[string]any); ok && m["type"] == "function_call" {
			if name, ok := m["name"].(string); ok {
				names = append(names, name)
			}
		}
	}
	return names
}
