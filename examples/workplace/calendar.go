package main

import (
	"cmp"
	"slices"
	"time"
)

// The working day, in UTC, within which calendar_find_free_slot looks.
const (
	workStart = 9 * time.Hour
	workEnd   = 17 * time.Hour
)

// event is a meeting on the shared company calendar.
type event struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Start     string   `json:"start"`
	End       string   `json:"end"`
	Attendees []string `json:"attendees"`
	Location  string   `json:"location"`
}

type eventList struct {
	Events []*event `json:"events"`
}

// slot is a free stretch of time.
type slot struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

var calendarTools = []entry{
	tool("calendar_list_events", "List events on the shared calendar by the day they start. Every filter is optional; text filters match case-insensitively. Earliest first.", true, calendarListEvents),
	tool("calendar_create_event", "Create an event; you are added as an attendee. Times are RFC 3339 and stored in UTC. Returns the event.", false, calendarCreateEvent),
	tool("calendar_update_event", "Change an event: only the fields given change, and attendees, when given, replace the list. Returns the event.", false, calendarUpdateEvent),
	tool("calendar_delete_event", "Delete an event. Returns the deleted event.", false, calendarDeleteEvent),
	tool("calendar_find_free_slot", "Find the earliest stretch of the given length on a day, within working hours (09:00-17:00 UTC), when none of the attendees has an event.", true, calendarFindFreeSlot),
}

func (s *state) event(id string) (*event, error) {
	for _, ev := range s.events {
		if ev.ID == id {
			return ev, nil
		}
	}
	return nil, notFound("no event with id %q", id)
}

type calendarListInput struct {
	DateFrom string `json:"date_from,omitempty" jsonschema:"the earliest day, YYYY-MM-DD, inclusive"`
	DateTo   string `json:"date_to,omitempty" jsonschema:"the latest day, YYYY-MM-DD, inclusive"`
	Query    string `json:"query,omitempty" jsonschema:"text to find in the title"`
	Attendee string `json:"attendee,omitempty" jsonschema:"text to find in an attendee's address"`
}

func calendarListEvents(s *state, in calendarListInput) (eventList, error) {
	days, err := parseDayRange("date_from", in.DateFrom, "date_to", in.DateTo)
	if err != nil {
		return eventList{}, err
	}
	found := []*event{}
	for _, ev := range s.events {
		if days.contains(day(ev.Start)) && containsFold(ev.Title, in.Query) && anyContainsFold(ev.Attendees, in.Attendee) {
			found = append(found, ev)
		}
	}
	slices.SortStableFunc(found, func(a, b *event) int { return cmp.Compare(a.Start, b.Start) })
	return eventList{found}, nil
}

// checkTimes validates an event's start and end and returns them in UTC.
func checkTimes(start, end string) (string, string, error) {
	start, err := parseInstant("start", start)
	if err != nil {
		return "", "", err
	}
	end, err = parseInstant("end", end)
	if err != nil {
		return "", "", err
	}
	if end <= start {
		return "", "", invalid("end %s is not after start %s", end, start)
	}
	return start, end, nil
}

type calendarCreateInput struct {
	Title     string   `json:"title" jsonschema:"the event's title"`
	Start     string   `json:"start" jsonschema:"when it starts, RFC 3339, e.g. 2025-03-13T14:00:00Z"`
	End       string   `json:"end" jsonschema:"when it ends, RFC 3339, after start"`
	Attendees []string `json:"attendees,omitempty" jsonschema:"the attendees' addresses"`
	Location  string   `json:"location,omitempty" jsonschema:"where it takes place"`
}

func calendarCreateEvent(s *state, in calendarCreateInput) (*event, error) {
	if in.Title == "" {
		return nil, invalid("title must not be empty")
	}
	start, end, err := checkTimes(in.Start, in.End)
	if err != nil {
		return nil, err
	}
	attendees, err := parseAddresses("attendees", in.Attendees)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(attendees, you) {
		attendees = slices.Insert(attendees, 0, you)
	}
	ev := &event{
		ID:        s.newID("EV"),
		Title:     in.Title,
		Start:     start,
		End:       end,
		Attendees: attendees,
		Location:  in.Location,
	}
	s.events = append(s.events, ev)
	return ev, nil
}

type calendarUpdateInput struct {
	ID        string   `json:"id" jsonschema:"the event's id"`
	Title     string   `json:"title,omitempty" jsonschema:"a new title"`
	Start     string   `json:"start,omitempty" jsonschema:"a new start, RFC 3339"`
	End       string   `json:"end,omitempty" jsonschema:"a new end, RFC 3339"`
	Attendees []string `json:"attendees,omitempty" jsonschema:"the new list of attendees' addresses"`
	Location  string   `json:"location,omitempty" jsonschema:"a new location"`
}

func calendarUpdateEvent(s *state, in calendarUpdateInput) (*event, error) {
	ev, err := s.event(in.ID)
	if err != nil {
		return nil, err
	}
	// Change a copy, so that a call that fails leaves the event as it was.
	up := *ev
	if in.Title != "" {
		up.Title = in.Title
	}
	if in.Location != "" {
		up.Location = in.Location
	}
	up.Start, up.End, err = checkTimes(cmp.Or(in.Start, ev.Start), cmp.Or(in.End, ev.End))
	if err != nil {
		return nil, err
	}
	if in.Attendees != nil {
		if up.Attendees, err = parseAddresses("attendees", in.Attendees); err != nil {
			return nil, err
		}
	}
	*ev = up
	return ev, nil
}

type eventIDInput struct {
	ID string `json:"id" jsonschema:"the event's id"`
}

func calendarDeleteEvent(s *state, in eventIDInput) (*event, error) {
	ev, err := s.event(in.ID)
	if err != nil {
		return nil, err
	}
	s.events = slices.DeleteFunc(s.events, func(e *event) bool { return e == ev })
	return ev, nil
}

type freeSlotInput struct {
	Date            string   `json:"date" jsonschema:"the day, YYYY-MM-DD"`
	DurationMinutes int      `json:"duration_minutes" jsonschema:"how long the slot must be, in minutes"`
	Attendees       []string `json:"attendees,omitempty" jsonschema:"whose events to avoid; you when empty"`
}

func calendarFindFreeSlot(s *state, in freeSlotInput) (slot, error) {
	date, err := parseDay("date", in.Date)
	if err != nil {
		return slot{}, err
	}
	if in.DurationMinutes <= 0 || time.Duration(in.DurationMinutes)*time.Minute > workEnd-workStart {
		return slot{}, invalid("duration_minutes: %d is not between 1 and %d", in.DurationMinutes, int((workEnd-workStart)/time.Minute))
	}
	who := []string{you}
	if len(in.Attendees) > 0 {
		if who, err = parseAddresses("attendees", in.Attendees); err != nil {
			return slot{}, err
		}
	}
	midnight, _ := time.Parse(dayLayout, date) // parseDay vetted it
	from, until := midnight.Add(workStart), midnight.Add(workEnd)
	length := time.Duration(in.DurationMinutes) * time.Minute

	var busy []*event
	for _, ev := range s.events {
		if slices.ContainsFunc(ev.Attendees, func(a string) bool { return slices.Contains(who, a) }) {
			busy = append(busy, ev)
		}
	}
	slices.SortFunc(busy, func(a, b *event) int { return cmp.Compare(a.Start, b.Start) })
	// Sweep the busy events in order of start, pushing the candidate start
	// past each event that overlaps the candidate slot.
	start := from
	for _, ev := range busy {
		evStart, evEnd := instant(ev.Start), instant(ev.End)
		if !evStart.Before(start.Add(length)) {
			break
		}
		if evEnd.After(start) {
			start = evEnd
		}
	}
	if start.Add(length).After(until) {
		return slot{}, notFound("no free %d-minute slot on %s between %s and %s UTC",
			in.DurationMinutes, date, from.Format("15:04"), until.Format("15:04"))
	}
	return slot{start.Format(time.RFC3339), start.Add(length).Format(time.RFC3339)}, nil
}
