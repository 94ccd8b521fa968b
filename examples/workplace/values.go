package main

import (
	"fmt"
	"net/http"
	"net/mail"
	"slices"
	"strings"
	"time"
)

// A toolError is a failed call the agent can learn from: the status says
// whether the call named something that does not exist (404) or carried a
// value the tool cannot use (422), and the message says which.
type toolError struct {
	status int
	msg    string
}

func (e *toolError) Error() string { return e.msg }

func notFound(format string, args ...any) error {
	return &toolError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

func invalid(format string, args ...any) error {
	return &toolError{http.StatusUnprocessableEntity, fmt.Sprintf(format, args...)}
}

// Days are YYYY-MM-DD and instants are RFC 3339 in UTC. Every time the office
// stores is in UTC, so the first ten bytes of an instant are its day and days
// compare as strings.
const dayLayout = time.DateOnly

func parseDay(field, s string) (string, error) {
	if _, err := time.Parse(dayLayout, s); err != nil {
		return "", invalid("%s: %q is not a date (want YYYY-MM-DD)", field, s)
	}
	return s, nil
}

// parseInstant accepts any RFC 3339 time and returns it in UTC, so that an
// agent may write offsets and the office still compares times as strings.
func parseInstant(field, s string) (string, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return "", invalid("%s: %q is not an RFC 3339 time (want e.g. 2025-03-13T14:00:00Z)", field, s)
	}
	return t.UTC().Format(time.RFC3339), nil
}

// instant parses a time the office stored; parseInstant vetted it on the way
// in.
func instant(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s)
	return t
}

func day(instant string) string { return instant[:len(dayLayout)] }

// A dayRange is an inclusive range of days; an empty end is open.
type dayRange struct{ from, to string }

func parseDayRange(fromField, from, toField, to string) (dayRange, error) {
	var err error
	if from != "" {
		if from, err = parseDay(fromField, from); err != nil {
			return dayRange{}, err
		}
	}
	if to != "" {
		if to, err = parseDay(toField, to); err != nil {
			return dayRange{}, err
		}
	}
	if from != "" && to != "" && from > to {
		return dayRange{}, invalid("%s %s is after %s %s", fromField, from, toField, to)
	}
	return dayRange{from, to}, nil
}

func (r dayRange) contains(day string) bool {
	return (r.from == "" || day >= r.from) && (r.to == "" || day <= r.to)
}

// parseAddress accepts "name@host" or "Name <name@host>" and returns the bare
// address in lower case, the form the office stores and compares.
func parseAddress(field, s string) (string, error) {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return "", invalid("%s: %q is not an email address", field, s)
	}
	return strings.ToLower(a.Address), nil
}

// parseAddresses is parseAddress over a list; it returns a non-nil slice so
// that records encode an empty list as [] rather than null.
func parseAddresses(field string, in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for i, s := range in {
		a, err := parseAddress(fmt.Sprintf("%s[%d]", field, i), s)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out, nil
}

// containsFold reports whether sub is in s, ignoring case; every search
// filter matches this way, and an empty filter matches everything.
func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// anyContainsFold reports whether sub is in any of list, ignoring case.
func anyContainsFold(list []string, sub string) bool {
	if sub == "" {
		return true
	}
	return slices.ContainsFunc(list, func(s string) bool { return containsFold(s, sub) })
}
