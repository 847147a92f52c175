package inbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNoQuestions means the plan asks nothing to answer: it is not needs_clarification, or has no
// questions (or, for a planner asking for them, no answers are recorded).
var ErrNoQuestions = errors.New("NO_QUESTIONS")

// Conversation is what archiplan keeps of how a plan came to be and of the questions it asked: the
// request (intent, scope) and the planner that wrote it, the plan it follows (a re-ask after
// answers) and the one that followed it, and the person's answers to its questions. It lives
// under .git/ beside the preview records, where nothing written to the inbox can reach it.
type Conversation struct {
	FormatVersion string `json:"format_version"`
	Name          string `json:"name"`
	Intent        string `json:"intent,omitempty"`
	Scope         string `json:"scope,omitempty"`
	Planner       string `json:"planner,omitempty"`        // the planner's kind: codex, openai, command, ...
	PlannerName   string `json:"planner_config,omitempty"` // which of the configuration's planners
	Model         string `json:"model,omitempty"`
	// How says how the plan was asked for (the API and output format, planners.Describe), and
	// Attempts how many answers it took; PlanSHA256 is the plan the planner's last answer made:
	// a plan file written over it is not the planner's, and the preview names no planner for it.
	How        string `json:"how,omitempty"`
	Attempts   int    `json:"attempts,omitempty"`
	PlanSHA256 string `json:"plan_sha256,omitempty"`
	Thread     string `json:"thread,omitempty"`
	Turn       string `json:"turn,omitempty"`
	Follows    string `json:"follows,omitempty"`     // the NAME whose answered questions this plan follows
	FollowedBy string `json:"followed_by,omitempty"` // the NAME asked after the answers
	// ResubmittedFrom is the NAME whose plan this is, the same bytes submitted again (Resubmit).
	ResubmittedFrom string `json:"resubmitted_from,omitempty"`
	// Questions are the plan's questions as answered; Answers the person's, one for each.
	Questions  []string `json:"questions,omitempty"`
	Answers    []string `json:"answers,omitempty"`
	AnsweredBy string   `json:"answered_by,omitempty"`
	AnsweredAt string   `json:"answered_at,omitempty"`
}

// ConversationFormat versions Conversation records.
const ConversationFormat = "1"

// Open says the questions are answered and no plan followed yet: whoever plans next should read
// the answers.
// Wrote says who wrote the plan whose bytes hash to planSHA, in one line for previews and
// status ("" when it is not the plan the planner answered).
func (c *Conversation) Wrote(planSHA string) string {
	if c == nil || c.Planner == "" || c.PlanSHA256 == "" || c.PlanSHA256 != planSHA {
		return ""
	}
	who := c.Planner
	if c.PlannerName != "" && c.PlannerName != "planner" {
		who = c.PlannerName + " (" + c.Planner
		if c.Model != "" {
			who += ", " + c.Model
		}
		who += ")"
	} else if c.Model != "" {
		who += " (" + c.Model + ")"
	}
	s := "Asked of the planner " + who
	if c.How != "" {
		s += ", " + c.How
	}
	if c.Attempts > 1 {
		s += fmt.Sprintf(", after %d answers", c.Attempts)
	}
	return s
}

func (c *Conversation) Open() bool { return c != nil && len(c.Answers) > 0 && c.FollowedBy == "" }

func (b *Inbox) conversationPath(name string) string {
	return filepath.Join(b.StateDir, "conversations", name+".json")
}

// SaveConversation writes NAME's conversation record whole.
func (b *Inbox) SaveConversation(c *Conversation) error {
	if err := CheckName(c.Name); err != nil {
		return err
	}
	c.FormatVersion = ConversationFormat
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(b.conversationPath(c.Name)), 0o755); err != nil {
		return fmt.Errorf("conversation %s: %w", c.Name, err)
	}
	return writeAtomic(b.conversationPath(c.Name), append(data, '\n'))
}

// Conversation reads NAME's conversation record; nil when there is none.
func (b *Inbox) Conversation(name string) (*Conversation, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	data, err := ReadFile(b.conversationPath(name), MaxContextBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c Conversation
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("read the conversation of %s: %w", name, err)
	}
	if c.Name != name {
		return nil, fmt.Errorf("the conversation of %s names %q", name, c.Name)
	}
	return &c, nil
}
