package main

import (
	"cmp"
	"slices"
	"strings"
)

// The folders of the mailbox.
const (
	folderInbox = "inbox"
	folderSent  = "sent"
	folderTrash = "trash"
)

// email is a message in the mailbox of the user, you.
type email struct {
	ID        string   `json:"id"`
	From      string   `json:"from"`
	To        []string `json:"to"`
	CC        []string `json:"cc"`
	Subject   string   `json:"subject"`
	Body      string   `json:"body"`
	Date      string   `json:"date"`
	Read      bool     `json:"read"`
	Folder    string   `json:"folder"`
	InReplyTo string   `json:"in_reply_to,omitempty"`
}

// recipients is the message's to and cc.
func (m *email) recipients() []string { return slices.Concat(m.To, m.CC) }

type emailList struct {
	Emails []*email `json:"emails"`
}

var emailTools = []entry{
	tool("email_search", "Search the mailbox. Every filter is optional; text filters match case-insensitively. Newest first.", true, emailSearch),
	tool("email_read", "Open an email by id: returns it in full and marks it read.", false, emailRead),
	tool("email_send", "Send a new email from you. Returns the sent email.", false, emailSend),
	tool("email_reply", "Reply to an email, to its sender or, with reply_all, to everyone on it. Returns the sent reply.", false, emailReply),
	tool("email_forward", "Forward an email, with an optional note above it. Returns the sent email.", false, emailForward),
	tool("email_delete", "Move an email to the trash. Returns the email.", false, emailDelete),
	tool("email_mark_read", "Mark an email read or unread. Returns the email.", false, emailMarkRead),
}

func (s *state) email(id string) (*email, error) {
	for _, m := range s.emails {
		if m.ID == id {
			return m, nil
		}
	}
	return nil, notFound("no email with id %q", id)
}

// send files a message from you in the sent folder.
func (s *state) send(to, cc []string, subject, body, inReplyTo string) *email {
	m := &email{
		ID:        s.newID("E"),
		From:      you,
		To:        to,
		CC:        cc,
		Subject:   subject,
		Body:      body,
		Date:      now,
		Read:      true,
		Folder:    folderSent,
		InReplyTo: inReplyTo,
	}
	s.emails = append(s.emails, m)
	return m
}

type emailSearchInput struct {
	Query      string `json:"query,omitempty" jsonschema:"text to find in the subject or body"`
	From       string `json:"from,omitempty" jsonschema:"text to find in the sender's address"`
	To         string `json:"to,omitempty" jsonschema:"text to find in a recipient's address (to or cc)"`
	Folder     string `json:"folder,omitempty" jsonschema:"inbox, sent or trash; every folder when empty"`
	UnreadOnly bool   `json:"unread_only,omitempty" jsonschema:"only unread emails"`
	DateFrom   string `json:"date_from,omitempty" jsonschema:"the earliest day, YYYY-MM-DD, inclusive"`
	DateTo     string `json:"date_to,omitempty" jsonschema:"the latest day, YYYY-MM-DD, inclusive"`
}

func emailSearch(s *state, in emailSearchInput) (emailList, error) {
	switch in.Folder {
	case "", folderInbox, folderSent, folderTrash:
	default:
		return emailList{}, invalid("folder: %q is not one of inbox, sent, trash", in.Folder)
	}
	days, err := parseDayRange("date_from", in.DateFrom, "date_to", in.DateTo)
	if err != nil {
		return emailList{}, err
	}
	found := []*email{}
	for _, m := range s.emails {
		if (in.Folder == "" || m.Folder == in.Folder) &&
			(!in.UnreadOnly || !m.Read) &&
			(containsFold(m.Subject, in.Query) || containsFold(m.Body, in.Query)) &&
			containsFold(m.From, in.From) &&
			anyContainsFold(m.recipients(), in.To) &&
			days.contains(day(m.Date)) {
			found = append(found, m)
		}
	}
	slices.SortStableFunc(found, func(a, b *email) int { return cmp.Compare(b.Date, a.Date) })
	return emailList{found}, nil
}

type emailIDInput struct {
	ID string `json:"id" jsonschema:"the email's id"`
}

func emailRead(s *state, in emailIDInput) (*email, error) {
	m, err := s.email(in.ID)
	if err != nil {
		return nil, err
	}
	m.Read = true
	return m, nil
}

type emailSendInput struct {
	To      []string `json:"to" jsonschema:"the recipients' addresses, at least one"`
	CC      []string `json:"cc,omitempty" jsonschema:"addresses to copy"`
	Subject string   `json:"subject" jsonschema:"the subject line"`
	Body    string   `json:"body" jsonschema:"the message"`
}

func emailSend(s *state, in emailSendInput) (*email, error) {
	if len(in.To) == 0 {
		return nil, invalid("to: at least one recipient is required")
	}
	to, err := parseAddresses("to", in.To)
	if err != nil {
		return nil, err
	}
	cc, err := parseAddresses("cc", in.CC)
	if err != nil {
		return nil, err
	}
	return s.send(to, cc, in.Subject, in.Body, ""), nil
}

type emailReplyInput struct {
	ID       string `json:"id" jsonschema:"the id of the email to reply to"`
	Body     string `json:"body" jsonschema:"the reply"`
	ReplyAll bool   `json:"reply_all,omitempty" jsonschema:"also reply to everyone else on the email, in cc"`
}

func emailReply(s *state, in emailReplyInput) (*email, error) {
	m, err := s.email(in.ID)
	if err != nil {
		return nil, err
	}
	// Replying to your own message writes to its recipients again, as a
	// mail client does.
	to := []string{m.From}
	if m.From == you {
		to = slices.Clone(m.To)
	}
	cc := []string{}
	if in.ReplyAll {
		for _, a := range m.recipients() {
			if a != you && !slices.Contains(to, a) && !slices.Contains(cc, a) {
				cc = append(cc, a)
			}
		}
	}
	return s.send(to, cc, prefixed("Re: ", m.Subject), in.Body, m.ID), nil
}

type emailForwardInput struct {
	ID   string   `json:"id" jsonschema:"the id of the email to forward"`
	To   []string `json:"to" jsonschema:"the recipients' addresses, at least one"`
	Note string   `json:"note,omitempty" jsonschema:"a note to put above the forwarded email"`
}

func emailForward(s *state, in emailForwardInput) (*email, error) {
	m, err := s.email(in.ID)
	if err != nil {
		return nil, err
	}
	if len(in.To) == 0 {
		return nil, invalid("to: at least one recipient is required")
	}
	to, err := parseAddresses("to", in.To)
	if err != nil {
		return nil, err
	}
	var body strings.Builder
	if in.Note != "" {
		body.WriteString(in.Note + "\n\n")
	}
	body.WriteString("---------- Forwarded message ----------\n")
	body.WriteString("From: " + m.From + "\nDate: " + m.Date + "\nSubject: " + m.Subject + "\n\n")
	body.WriteString(m.Body)
	return s.send(to, []string{}, prefixed("Fwd: ", m.Subject), body.String(), ""), nil
}

// prefixed puts prefix ("Re: ", "Fwd: ") before subject unless it is there,
// so that a thread does not grow "Re: Re: ".
func prefixed(prefix, subject string) string {
	if len(subject) >= len(prefix) && strings.EqualFold(subject[:len(prefix)], prefix) {
		return subject
	}
	return prefix + subject
}

func emailDelete(s *state, in emailIDInput) (*email, error) {
	m, err := s.email(in.ID)
	if err != nil {
		return nil, err
	}
	m.Folder = folderTrash
	return m, nil
}

type emailMarkReadInput struct {
	ID   string `json:"id" jsonschema:"the email's id"`
	Read bool   `json:"read" jsonschema:"true to mark the email read, false to mark it unread"`
}

func emailMarkRead(s *state, in emailMarkReadInput) (*email, error) {
	m, err := s.email(in.ID)
	if err != nil {
		return nil, err
	}
	m.Read = in.Read
	return m, nil
}
