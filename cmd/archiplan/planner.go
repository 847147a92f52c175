package main

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/viper"

	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/plans/planners"
	"github.com/archiplan/archiplan/schemas"
)

// plannerName is the name of a planner under `planners:` (as viper keeps keys: lower case).
var plannerName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// errNoPlanner: the workspace cannot answer an ask, which is not the caller's wrong usage.
var errNoPlanner = errors.New("no planner configured: set planner.kind (" + strings.Join(planners.Kinds, ", ") + ") in .archiplan.yaml")

// plannerSettings is the configuration of the planner an ask uses: `planner:` by default, or
// `planners.NAME` for --planner NAME. It returns the name the planner goes by ("planner" for the
// default one).
func (c *config) plannerSettings(name string) (*viper.Viper, string, error) {
	if name == "" || name == "planner" {
		sub := c.v.Sub("planner")
		if sub == nil || sub.GetString("kind") == "" {
			return nil, "", codedError{exitNoUsable, errNoPlanner}
		}
		return sub, "planner", nil
	}
	name = strings.ToLower(name)
	if !plannerName.MatchString(name) {
		return nil, "", usageError{fmt.Errorf("--planner %q: a name of lower-case letters, digits, - and _", name)}
	}
	sub := c.v.Sub("planners." + name)
	if sub == nil {
		return nil, "", usageError{fmt.Errorf("--planner %s: no planners.%s in the configuration (configured: %s)", name, name, c.plannerNames())}
	}
	if sub.GetString("kind") == "" {
		return nil, "", usageError{fmt.Errorf("planners.%s.kind is not set (%s)", name, strings.Join(planners.Kinds, ", "))}
	}
	return sub, name, nil
}

// plannerNames lists the configured planners, for messages.
func (c *config) plannerNames() string {
	var names []string
	if c.v.GetString("planner.kind") != "" {
		names = append(names, "planner (the default)")
	}
	var more []string
	for k := range c.v.GetStringMap("planners") {
		more = append(more, k)
	}
	sort.Strings(more)
	names = append(names, more...)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// plannerConfig is the planners.Config of a planner's settings.
func plannerConfig(s *viper.Viper, name, dir string, progress func(string)) planners.Config {
	strict, _ := schemas.StrictJSON(schemas.Latest)
	return planners.Config{
		Name: name, Kind: s.GetString("kind"), Command: s.GetStringSlice("command"),
		Model: s.GetString("model"), BaseURL: s.GetString("base_url"),
		APIKeyEnv: s.GetString("api_key_env"), APIKeyHeader: s.GetString("api_key_header"),
		Headers: s.GetStringMapString("headers"), Query: s.GetStringMapString("query"),
		Output: s.GetString("output"), MaxOutputTokens: s.GetInt("max_output_tokens"),
		Store: s.GetBool("store"), Schema: strict, Timeout: s.GetDuration("timeout"), Dir: dir,
		MaxInput: s.GetInt("max_input"), Instructions: plans.StablePrompt(), Progress: progress,
	}
}
