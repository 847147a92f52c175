package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/viper"

	"github.com/archiplan/archiplan/internal/lazyre"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/plans/planners"
	"github.com/archiplan/archiplan/schemas"
)

// plannerName is the name of a planner under `planners:` (as viper keeps keys: lower case).
var plannerName = lazyre.New(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// errNoPlanner: the workspace cannot answer an ask, which is not the caller's wrong usage.
var errNoPlanner = errors.New("no planner configured: set planner.kind (" + strings.Join(planners.Kinds, ", ") + ") in .archiplan.yaml")

// plannerKeys reads one planner's keys through the whole configuration (a viper Sub would drop
// the ARCHIPLAN_* overrides the configuration allows, such as ARCHIPLAN_PLANNER_MAX_INPUT).
type plannerKeys struct {
	v      *viper.Viper
	prefix string // "planner." or "planners.NAME."
}

func (k plannerKeys) GetString(key string) string { return k.v.GetString(k.prefix + key) }
func (k plannerKeys) GetInt(key string) int       { return k.v.GetInt(k.prefix + key) }
func (k plannerKeys) GetBool(key string) bool     { return k.v.GetBool(k.prefix + key) }
func (k plannerKeys) GetStringSlice(key string) []string {
	return k.v.GetStringSlice(k.prefix + key)
}
func (k plannerKeys) GetStringMapString(key string) map[string]string {
	return k.v.GetStringMapString(k.prefix + key)
}
func (k plannerKeys) GetDuration(key string) time.Duration { return k.v.GetDuration(k.prefix + key) }

// plannerSettings is the configuration of the planner an ask uses: `planner:` by default, or
// `planners.NAME` for --planner NAME. It returns the name the planner goes by ("planner" for the
// default one).
func (c *config) plannerSettings(name string) (plannerKeys, string, error) {
	if name == "" || name == "planner" {
		if c.v.GetString("planner.kind") == "" {
			return plannerKeys{}, "", codedError{exitNoUsable, errNoPlanner}
		}
		return plannerKeys{c.v, "planner."}, "planner", nil
	}
	name = strings.ToLower(name)
	if !plannerName.MatchString(name) {
		return plannerKeys{}, "", usageError{fmt.Errorf("--planner %q: a name of lower-case letters, digits, - and _", name)}
	}
	if !c.v.IsSet("planners." + name) {
		return plannerKeys{}, "", usageError{fmt.Errorf("--planner %s: no planners.%s in the configuration (configured: %s)", name, name, c.plannerNames())}
	}
	keys := plannerKeys{c.v, "planners." + name + "."}
	if keys.GetString("kind") == "" {
		return plannerKeys{}, "", usageError{fmt.Errorf("planners.%s.kind is not set (%s)", name, strings.Join(planners.Kinds, ", "))}
	}
	return keys, name, nil
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
func plannerConfig(s plannerKeys, name, dir string, progress func(string)) planners.Config {
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
