package main

// employee is a colleague in the company directory.
type employee struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Team  string `json:"team"`
	Title string `json:"title"`
}

type employeeList struct {
	Employees []employee `json:"employees"`
}

// currentDate is the scenario's fixed present.
type currentDate struct {
	Date    string `json:"date"`
	Weekday string `json:"weekday"`
	Now     string `json:"now"`
}

var directoryTools = []entry{
	tool("directory_search", "Search the company directory of employees. Every filter is optional; text filters match case-insensitively.", true, directorySearch),
	tool("directory_get", "Get an employee by email address.", true, directoryGet),
	tool("company_get_current_date", "Get today's date and the current time (UTC).", true, companyGetCurrentDate),
}

func (s *state) employee(addr string) (employee, error) {
	for _, e := range s.employees {
		if e.Email == addr {
			return e, nil
		}
	}
	return employee{}, notFound("no employee with email %q", addr)
}

// colleague validates an address that must be an employee's, such as the
// owner of a CRM record, and returns it as the directory spells it.
func (s *state) colleague(field, addr string) (string, error) {
	addr, err := parseAddress(field, addr)
	if err != nil {
		return "", err
	}
	if _, err := s.employee(addr); err != nil {
		return "", err
	}
	return addr, nil
}

type directorySearchInput struct {
	Query string `json:"query,omitempty" jsonschema:"text to find in the name, email or title"`
	Team  string `json:"team,omitempty" jsonschema:"text to find in the team"`
}

func directorySearch(s *state, in directorySearchInput) (employeeList, error) {
	found := []employee{}
	for _, e := range s.employees {
		if (containsFold(e.Name, in.Query) || containsFold(e.Email, in.Query) || containsFold(e.Title, in.Query)) &&
			containsFold(e.Team, in.Team) {
			found = append(found, e)
		}
	}
	return employeeList{found}, nil
}

type directoryGetInput struct {
	Email string `json:"email" jsonschema:"the employee's email address"`
}

func directoryGet(s *state, in directoryGetInput) (employee, error) {
	addr, err := parseAddress("email", in.Email)
	if err != nil {
		return employee{}, err
	}
	return s.employee(addr)
}

func companyGetCurrentDate(*state, struct{}) (currentDate, error) {
	t := instant(now)
	return currentDate{Date: day(now), Weekday: t.Weekday().String(), Now: now}, nil
}
