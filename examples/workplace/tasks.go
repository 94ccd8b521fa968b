package main

import "strings"

// The states of a task.
const (
	taskOpen = "open"
	taskDone = "done"
)

// task is an item on the team's task list.
type task struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Due      string `json:"due"`
	Assignee string `json:"assignee"`
	Status   string `json:"status"`
}

type taskList struct {
	Tasks []*task `json:"tasks"`
}

var taskTools = []entry{
	tool("task_list", "List tasks. Every filter is optional; text filters match case-insensitively.", true, taskListTasks),
	tool("task_create", "Create an open task, assigned to you unless assignee says otherwise. Returns the task.", false, taskCreate),
	tool("task_complete", "Mark a task done. Returns the task.", false, taskComplete),
}

func (s *state) task(id string) (*task, error) {
	for _, t := range s.tasks {
		if t.ID == id {
			return t, nil
		}
	}
	return nil, notFound("no task with id %q", id)
}

type taskListInput struct {
	Query    string `json:"query,omitempty" jsonschema:"text to find in the title"`
	Assignee string `json:"assignee,omitempty" jsonschema:"text to find in the assignee's address"`
	Status   string `json:"status,omitempty" jsonschema:"open or done"`
}

func taskListTasks(s *state, in taskListInput) (taskList, error) {
	switch in.Status {
	case "", taskOpen, taskDone:
	default:
		return taskList{}, invalid("status: %q is not one of open, done", in.Status)
	}
	found := []*task{}
	for _, t := range s.tasks {
		if containsFold(t.Title, in.Query) && containsFold(t.Assignee, in.Assignee) && (in.Status == "" || t.Status == in.Status) {
			found = append(found, t)
		}
	}
	return taskList{found}, nil
}

type taskCreateInput struct {
	Title    string `json:"title" jsonschema:"what is to be done"`
	Due      string `json:"due,omitempty" jsonschema:"the day it is due, YYYY-MM-DD"`
	Assignee string `json:"assignee,omitempty" jsonschema:"the address of the employee to do it; you when empty"`
}

func taskCreate(s *state, in taskCreateInput) (*task, error) {
	if strings.TrimSpace(in.Title) == "" {
		return nil, invalid("title must not be empty")
	}
	var err error
	if in.Due != "" {
		if in.Due, err = parseDay("due", in.Due); err != nil {
			return nil, err
		}
	}
	assignee := you
	if in.Assignee != "" {
		if assignee, err = s.colleague("assignee", in.Assignee); err != nil {
			return nil, err
		}
	}
	t := &task{ID: s.newID("T"), Title: in.Title, Due: in.Due, Assignee: assignee, Status: taskOpen}
	s.tasks = append(s.tasks, t)
	return t, nil
}

type taskIDInput struct {
	ID string `json:"id" jsonschema:"the task's id"`
}

func taskComplete(s *state, in taskIDInput) (*task, error) {
	t, err := s.task(in.ID)
	if err != nil {
		return nil, err
	}
	t.Status = taskDone
	return t, nil
}
