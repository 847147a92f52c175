// Package settings reads .archiplan.yaml: one reader for the commands (which put the environment
// and flags on top) and for the configuration a pulled commit carries, so that both see the same
// keys (case-insensitive), the same lists and the same defaults.
package settings

import (
	"bytes"

	"github.com/spf13/viper"
)

// File is the configuration's name at the workspace's root.
const File = ".archiplan.yaml"

// New is a configuration with the defaults and nothing read yet.
func New() *viper.Viper {
	v := viper.New()
	for _, name := range []string{"model", "inbox"} { // where: every command needs them
		v.SetDefault(name, Default(name))
	}
	return v
}

// Read reads a configuration file's bytes into v, as YAML whatever the file's name.
func Read(v *viper.Viper, data []byte) error {
	v.SetConfigType("yaml")
	return v.ReadConfig(bytes.NewReader(data))
}

// Parse is the configuration data holds, over the defaults.
func Parse(data []byte) (*viper.Viper, error) {
	v := New()
	if err := Read(v, data); err != nil {
		return nil, err
	}
	return v, nil
}

// Key is one key of the configuration: its name (a dotted path), its default as the commands see
// it (for people: "" when unset or set where it is used), whether an ARCHIPLAN_* variable may
// override it, and what it does.
type Key struct {
	Name    string
	Default string
	Env     bool
	Meaning string
}

// Keys are every key the commands read, in the order a person meets them. The reference page
// (docs/reference/config.md) is made from this table, and a test holds it to the keys the code
// reads. planner.* keys hold for planners.NAME.* too.
var Keys = []Key{
	{"model", "model.archimate", false, "the model file, from the workspace's root (inside it, apart from .git, .archiplan, hooks, policy and the configuration: MODEL_PLACE_UNSAFE)"},
	{"inbox", "plans", false, "the folder planners write plans into and the daemon watches (inside the workspace, apart from .git, .archiplan, hooks, policy, the configuration and the model: INBOX_PLACE_UNSAFE)"},
	{"policy.allowed_ops", "", false, "the ops a plan may use (empty: every op); checked against the vocabulary when the configuration loads"},
	{"policy.allowed_element_types", "", false, "the element types a plan may create or change to (empty: every type)"},
	{"policy.allowed_relationship_types", "", false, "the relationship types a plan may create (empty: every type)"},
	{"policy.protected_folders", "", false, "folders (Layer/Sub) whose objects no plan may change"},
	{"policy.timeout", "5s", false, "how long the Rego rules of policy/*.rego may take on one plan before it is refused (POLICY_ERROR)"},
	{"strict", "false", false, "a plan file must be a bare JSON object: no fences or prose stripped (EXTRACT_STRICT)"},
	{"planner_group", "", false, "planners write the inbox as this group: a plan is adopted when previewed, and only adopted plans are applied"},
	{"hooks.timeout", "30s", true, "a hook (pre-apply, post-apply) running longer is killed with what it started"},
	{"http", "", false, "the address the daemon serves the review page at (loopback only unless http_remote); the flag --http overrides it"},
	{"http_remote", "false", false, "let the review page listen beyond loopback (put it behind TLS and an authenticating proxy)"},
	{"publish", "", false, "a folder the daemon keeps as a published site of the model at HEAD; the default of publish -o"},
	{"render.line_jumps", "false", false, "archiplan render draws a jump where a line crosses another (Archi's preference, off in Archi); the flag --line-jumps overrides it"},
	{"render.curves", "false", false, "archiplan render rounds the bends of lines (Archi's preference, off in Archi); the flag --curves overrides it"},
	{"remote", "", false, "a remote of the repository's git config, shared with a team"},
	{"pull", "false", false, "fetch the remote on a timer and fast-forward (before each apply, to the last fetch)"},
	{"push", "false", false, "push each apply commit at once"},
	{"fetch_interval", "30s", true, "the daemon's timer for fetches"},
	{"deliver", "inbox", false, "how plans previewed valid are delivered (by the daemon, ask and MCP's submit_plan): inbox (approved in the inbox or on the review page) or pull-request (each becomes a pull request on the forge, applied when approved there; archiplan revert then proposes a pull request too)"},
	{"remote_timeouts.connect", "15s", false, "a fetch or push ends when the TCP connect and TLS handshake take longer"},
	{"remote_timeouts.idle", "60s", false, "a fetch or push ends when no byte is read or written for this long"},
	{"remote_timeouts.total", "10m", false, "a fetch or push ends after this long in all"},
	{"planner.kind", "", false, "the planner ask uses: codex, openai, chat, anthropic or command"},
	{"planner.command", "", false, "the command a command planner runs (a list of words); for codex, the app-server to run"},
	{"planner.model", "", true, "the model the planner asks (required for openai and chat)"},
	{"planner.base_url", "", false, "the API's base URL (https unless loopback); each kind has its provider's as default"},
	{"planner.api_key_env", "", false, "the environment variable holding the API key (sent only in api_key_header, only to base_url)"},
	{"planner.api_key_header", "", false, "the header the key is sent in (Azure OpenAI: api-key)"},
	{"planner.headers", "", false, "more headers sent with every request (a map)"},
	{"planner.query", "", false, "query parameters added to every request (a map; Azure OpenAI: api-version)"},
	{"planner.output", "", false, "chat: how the answer's JSON is asked for (json_schema, or json_object where a server lacks it)"},
	{"planner.max_output_tokens", "", false, "anthropic: the answer's token limit (the API's max_tokens)"},
	{"planner.store", "false", false, "openai: keep the conversation at OpenAI and continue it by previous_response_id"},
	{"planner.timeout", "", true, "how long one answer may take"},
	{"planner.max_input", "", true, "the characters a prompt may have (0: the planner's known limit)"},
	{"planner.max_attempts", "", true, "how many answers ask reads at most, asking again with the coded errors"},
	{"planners", "", false, "more planners by name (planners.NAME.kind, ...), for ask --planner NAME"},
	{"forge.kind", "", false, "the forge plans' pull requests go to: gitea (or forgejo), github or gitlab; its token from ARCHIPLAN_FORGE_TOKEN, the forge's own variable or git's credential helper"},
	{"forge.url", "", false, "the forge's web address (https unless loopback); empty: github.com or gitlab.com"},
	{"forge.repo", "", false, "the repository on the forge: owner/name (GitLab: the project's full path)"},
	{"forge.base", "", false, "the branch plans' pull requests go into (empty: the workspace's branch)"},
	{"forge.approvers", "", false, "the forge accounts whose approval of a plan's pull request counts (empty: anyone but its author; policy/ owners narrow it per plan)"},
}

// EnvKeys are the keys an ARCHIPLAN_* variable may override: how long and how much, never where,
// who or what is allowed.
func EnvKeys() []string {
	var out []string
	for _, k := range Keys {
		if k.Env {
			out = append(out, k.Name)
		}
	}
	return out
}

// Default is a key's default, as Keys gives it.
func Default(name string) string {
	for _, k := range Keys {
		if k.Name == name {
			return k.Default
		}
	}
	return ""
}
