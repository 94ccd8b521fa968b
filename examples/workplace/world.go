package main

// The office every scenario starts from: Brightline, on the morning of
// Wednesday 12 March 2025, seen by Sam Patel, an account executive. The
// scenarios share one office, so that each one's records are the others'
// distractors.
const (
	you   = "sam.patel@brightline.example"
	today = "2025-03-12"
	now   = today + "T09:00:00Z"

	// persona opens every task, so that the agent knows whose office it is.
	persona = "You are Sam Patel (" + you + "), an account executive at Brightline. "
)

// Colleagues the scenarios name.
const (
	cfo         = "priya.nair@brightline.example"
	analyst     = "marco.rossi@brightline.example"
	headOfSales = "lee.chen@brightline.example"
	legalLead   = "omar.haddad@brightline.example"
	engineer    = "tom.becker@brightline.example"
)

// newWorld returns a fresh copy of the office. Ids of seeded records are
// below each prefix's x100, and newID continues from there.
func newWorld() *state {
	return &state{
		employees: []employee{
			{"Sam Patel", you, "Sales", "Account Executive"},
			{"Lee Chen", headOfSales, "Sales", "Head of Sales"},
			{"Ana Gomez", "ana.gomez@brightline.example", "Sales", "Sales Development Representative"},
			{"Priya Nair", cfo, "Finance", "Chief Financial Officer (CFO)"},
			{"Marco Rossi", analyst, "Finance", "Financial Analyst"},
			{"Omar Haddad", legalLead, "Legal", "Legal Team Lead"},
			{"Julia Berg", "julia.berg@brightline.example", "Legal", "Paralegal"},
			{"Tom Becker", engineer, "Engineering", "Solutions Engineer"},
		},
		emails: []*email{
			{
				ID: "E1001", From: analyst, To: []string{you}, CC: []string{},
				Subject: "Q2 budget figures",
				Body:    "Hi Sam,\n\nFor your records: the Q2 travel budget for Sales is $48,000 and the events budget is $30,000.\n\nMarco",
				Date:    "2025-03-05T16:20:00Z", Read: true, Folder: folderInbox,
			},
			{
				ID: "E1002", From: "dev.malhotra@initech.example", To: []string{you}, CC: []string{},
				Subject: "Signed contract",
				Body:    "Hi Sam,\n\nAttached is the signed services contract. Looking forward to the kickoff.\n\nDev",
				Date:    "2025-03-11T14:05:00Z", Read: false, Folder: folderInbox,
			},
			{
				ID: "E1003", From: cfo, To: []string{you}, CC: []string{headOfSales},
				Subject: "Q2 travel budget?",
				Body:    "Sam,\n\nWhat is the Q2 travel budget for Sales that Finance confirmed? I need the figure for today's board deck.\n\nPriya",
				Date:    "2025-03-12T08:10:00Z", Read: false, Folder: folderInbox,
			},
			{
				ID: "E1004", From: cfo, To: []string{you, headOfSales}, CC: []string{},
				Subject: "Board deck draft",
				Body:    "Team,\n\nThe draft board deck is in the shared drive. Comments by Thursday, please.\n\nPriya",
				Date:    "2025-03-10T11:00:00Z", Read: true, Folder: folderInbox,
			},
			{
				ID: "E1005", From: "erin.walsh@umbrella.example", To: []string{you}, CC: []string{},
				Subject: "Our decision",
				Body:    "Hi Sam,\n\nThank you for your time. After a long review we have decided to go with another vendor.\n\nErin",
				Date:    "2025-03-11T17:30:00Z", Read: false, Folder: folderInbox,
			},
			{
				ID: "E1006", From: "news@saasweekly.example", To: []string{you}, CC: []string{},
				Subject: "This week in SaaS",
				Body:    "Pricing pages that convert, and ten more reads for your week.",
				Date:    "2025-03-10T06:00:00Z", Read: false, Folder: folderInbox,
			},
			{
				ID: "E1007", From: you, To: []string{"alice.moreno@acme.example"}, CC: []string{},
				Subject: "Pricing",
				Body:    "Hi Alice,\n\nAs promised, our pricing sheet is attached.\n\nSam",
				Date:    "2025-01-28T10:00:00Z", Read: true, Folder: folderSent,
			},
		},
		events: []*event{
			{"EV2001", "Sales standup", "2025-03-13T09:00:00Z", "2025-03-13T09:30:00Z", []string{you, headOfSales, "ana.gomez@brightline.example"}, "Room 2"},
			{"EV2002", "Pipeline review", "2025-03-13T09:30:00Z", "2025-03-13T10:30:00Z", []string{headOfSales, you}, "Room 2"},
			{"EV2003", "Budget sync", "2025-03-13T10:45:00Z", "2025-03-13T12:00:00Z", []string{cfo, analyst}, "Finance corner"},
			{"EV2004", "Lunch and learn", "2025-03-13T12:00:00Z", "2025-03-13T13:00:00Z", []string{engineer, headOfSales}, "Kitchen"},
			{"EV2005", "Legal training", "2025-03-13T13:00:00Z", "2025-03-13T14:00:00Z", []string{legalLead, "julia.berg@brightline.example"}, "Room 1"},
			{"EV2006", "Quarterly review", "2025-03-14T10:00:00Z", "2025-03-14T11:00:00Z", []string{you, cfo, headOfSales}, "Board room"},
			{"EV2007", "Umbrella demo", "2025-03-17T15:00:00Z", "2025-03-17T16:00:00Z", []string{you, engineer, "erin.walsh@umbrella.example"}, "Video call"},
			{"EV2008", "Initech kickoff prep", "2025-03-12T15:00:00Z", "2025-03-12T15:30:00Z", []string{you, engineer}, "Room 1"},
		},
		customers: []*customer{
			{"C3001", "Alice Moreno", "Acme Corp", "alice.moreno@acme.example", "+1 555 0101", "Lead", you, []string{"Asked for pricing."}, "2025-01-28"},
			{"C3002", "Ben Ortiz", "Acme Corp", "ben.ortiz@acme.example", "+1 555 0102", "Lead", you, []string{}, "2025-03-03"},
			{"C3003", "Carla Diaz", "Acme Corp", "carla.diaz@acme.example", "+1 555 0103", "Customer", you, []string{"Renewal due in June."}, "2025-01-15"},
			{"C3004", "Dev Malhotra", "Initech", "dev.malhotra@initech.example", "+1 555 0104", "Qualified", you, []string{}, "2025-03-11"},
			{"C3005", "Erin Walsh", "Umbrella Corp", "erin.walsh@umbrella.example", "+1 555 0105", "Qualified", you, []string{"Demo booked for 17 March."}, "2025-03-07"},
			{"C3006", "Felix Novak", "Hooli", "felix.novak@hooli.example", "+1 555 0106", "Lead", "ana.gomez@brightline.example", []string{}, "2025-01-05"},
		},
		tasks: []*task{
			{"T4001", "Send the Initech contract to Legal", "2025-03-13", you, taskOpen},
			{"T4002", "Prepare the Q2 forecast", "2025-03-20", you, taskOpen},
			{"T4003", "Update the Hooli record", "2025-03-07", "ana.gomez@brightline.example", taskOpen},
			{"T4004", "Book travel for LogiConf", "2025-03-01", you, taskDone},
		},
		seq: map[string]int{"E": 1100, "EV": 2100, "C": 3100, "T": 4100},
	}
}
