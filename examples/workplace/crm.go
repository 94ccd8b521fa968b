package main

import (
	"slices"
	"strings"
)

// statuses are the stages of a CRM record, in the order a deal moves through
// them.
var statuses = []string{"Lead", "Qualified", "Customer", "Lost"}

// parseStatus accepts a status in any case and returns it as the CRM spells
// it.
func parseStatus(s string) (string, error) {
	for _, st := range statuses {
		if strings.EqualFold(s, st) {
			return st, nil
		}
	}
	return "", invalid("status: %q is not one of %s", s, strings.Join(statuses, ", "))
}

// customer is a CRM record: a lead, or a customer won or lost.
type customer struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Company     string   `json:"company"`
	Email       string   `json:"email"`
	Phone       string   `json:"phone"`
	Status      string   `json:"status"`
	Owner       string   `json:"owner"`
	Notes       []string `json:"notes"`
	LastContact string   `json:"last_contact"`
}

type customerList struct {
	Customers []*customer `json:"customers"`
}

var crmTools = []entry{
	tool("crm_search_customers", "Search the CRM. Every filter is optional; text filters match case-insensitively.", true, crmSearchCustomers),
	tool("crm_get_customer", "Get a CRM record by id.", true, crmGetCustomer),
	tool("crm_update_customer", "Change a CRM record: only the fields given change. Returns the record.", false, crmUpdateCustomer),
	tool("crm_add_note", "Add a note to a CRM record. Returns the record.", false, crmAddNote),
	tool("crm_create_lead", "Add a new lead to the CRM, owned by you unless owner says otherwise. Returns the record.", false, crmCreateLead),
}

func (s *state) customer(id string) (*customer, error) {
	for _, c := range s.customers {
		if c.ID == id {
			return c, nil
		}
	}
	return nil, notFound("no customer with id %q", id)
}

type crmSearchInput struct {
	Query           string `json:"query,omitempty" jsonschema:"text to find in the name or email"`
	Company         string `json:"company,omitempty" jsonschema:"text to find in the company"`
	Status          string `json:"status,omitempty" jsonschema:"one of Lead, Qualified, Customer, Lost"`
	Owner           string `json:"owner,omitempty" jsonschema:"text to find in the owner's address"`
	LastContactFrom string `json:"last_contact_from,omitempty" jsonschema:"the earliest day of last contact, YYYY-MM-DD, inclusive"`
	LastContactTo   string `json:"last_contact_to,omitempty" jsonschema:"the latest day of last contact, YYYY-MM-DD, inclusive"`
}

func crmSearchCustomers(s *state, in crmSearchInput) (customerList, error) {
	if in.Status != "" {
		st, err := parseStatus(in.Status)
		if err != nil {
			return customerList{}, err
		}
		in.Status = st
	}
	days, err := parseDayRange("last_contact_from", in.LastContactFrom, "last_contact_to", in.LastContactTo)
	if err != nil {
		return customerList{}, err
	}
	found := []*customer{}
	for _, c := range s.customers {
		// A record never contacted has no day of last contact to filter on.
		contacted := days == (dayRange{}) || (c.LastContact != "" && days.contains(c.LastContact))
		if (containsFold(c.Name, in.Query) || containsFold(c.Email, in.Query)) &&
			containsFold(c.Company, in.Company) &&
			(in.Status == "" || c.Status == in.Status) &&
			containsFold(c.Owner, in.Owner) &&
			contacted {
			found = append(found, c)
		}
	}
	return customerList{found}, nil
}

type customerIDInput struct {
	ID string `json:"id" jsonschema:"the record's id"`
}

func crmGetCustomer(s *state, in customerIDInput) (*customer, error) {
	return s.customer(in.ID)
}

type crmUpdateInput struct {
	ID          string `json:"id" jsonschema:"the record's id"`
	Name        string `json:"name,omitempty" jsonschema:"a new name"`
	Company     string `json:"company,omitempty" jsonschema:"a new company"`
	Email       string `json:"email,omitempty" jsonschema:"a new email address"`
	Phone       string `json:"phone,omitempty" jsonschema:"a new phone number"`
	Status      string `json:"status,omitempty" jsonschema:"a new status: Lead, Qualified, Customer or Lost"`
	Owner       string `json:"owner,omitempty" jsonschema:"the address of the employee who now owns the record"`
	LastContact string `json:"last_contact,omitempty" jsonschema:"a new day of last contact, YYYY-MM-DD"`
}

func crmUpdateCustomer(s *state, in crmUpdateInput) (*customer, error) {
	c, err := s.customer(in.ID)
	if err != nil {
		return nil, err
	}
	// Change a copy, so that a call that fails leaves the record as it was.
	up := *c
	if in.Name != "" {
		up.Name = in.Name
	}
	if in.Company != "" {
		up.Company = in.Company
	}
	if in.Phone != "" {
		up.Phone = in.Phone
	}
	if in.Email != "" {
		if up.Email, err = parseAddress("email", in.Email); err != nil {
			return nil, err
		}
	}
	if in.Status != "" {
		if up.Status, err = parseStatus(in.Status); err != nil {
			return nil, err
		}
	}
	if in.Owner != "" {
		if up.Owner, err = s.colleague("owner", in.Owner); err != nil {
			return nil, err
		}
	}
	if in.LastContact != "" {
		if up.LastContact, err = parseDay("last_contact", in.LastContact); err != nil {
			return nil, err
		}
	}
	*c = up
	return c, nil
}

type crmAddNoteInput struct {
	ID   string `json:"id" jsonschema:"the record's id"`
	Note string `json:"note" jsonschema:"the note"`
}

func crmAddNote(s *state, in crmAddNoteInput) (*customer, error) {
	c, err := s.customer(in.ID)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Note) == "" {
		return nil, invalid("note must not be empty")
	}
	c.Notes = append(c.Notes, in.Note)
	return c, nil
}

type crmCreateLeadInput struct {
	Name    string `json:"name" jsonschema:"the person's name"`
	Company string `json:"company" jsonschema:"their company"`
	Email   string `json:"email" jsonschema:"their email address"`
	Phone   string `json:"phone,omitempty" jsonschema:"their phone number"`
	Owner   string `json:"owner,omitempty" jsonschema:"the address of the employee who owns the lead; you when empty"`
	Note    string `json:"note,omitempty" jsonschema:"a first note"`
}

func crmCreateLead(s *state, in crmCreateLeadInput) (*customer, error) {
	if strings.TrimSpace(in.Name) == "" {
		return nil, invalid("name must not be empty")
	}
	addr, err := parseAddress("email", in.Email)
	if err != nil {
		return nil, err
	}
	if i := slices.IndexFunc(s.customers, func(c *customer) bool { return c.Email == addr }); i >= 0 {
		return nil, invalid("email: %s is already the address of customer %s", addr, s.customers[i].ID)
	}
	owner := you
	if in.Owner != "" {
		if owner, err = s.colleague("owner", in.Owner); err != nil {
			return nil, err
		}
	}
	notes := []string{}
	if in.Note != "" {
		notes = append(notes, in.Note)
	}
	c := &customer{
		ID:      s.newID("C"),
		Name:    in.Name,
		Company: in.Company,
		Email:   addr,
		Phone:   in.Phone,
		Status:  "Lead",
		Owner:   owner,
		Notes:   notes,
	}
	s.customers = append(s.customers, c)
	return c, nil
}
