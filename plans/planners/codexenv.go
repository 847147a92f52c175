package planners

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/archiplan/archiplan/internal/proc"
)

// codexPassed are the variables of archiplan's environment the Codex app-server gets beyond
// proc.Passed: where its configuration and login live, the locale, proxies and certificates of
// its connection, and the built-in OpenAI provider's own (its key, base URL, organization and
// project headers). Nothing else: archiplan's environment holds the keys of other providers
// (ANTHROPIC_API_KEY, a chat planner's), the forge's and the remote's tokens, and codex, a
// planner, is not trusted with them.
var codexPassed = []string{
	"CODEX_HOME", "LANGUAGE", "TZ",
	"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "CODEX_CA_CERTIFICATE",
	"OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORGANIZATION", "OPENAI_PROJECT",
}

// codexEnv is the whole environment of the Codex app-server run as command: proc.Env's variables,
// codexPassed and the locale's LC_*, and the variables codex's configuration says a model provider
// takes its key or headers from (env_key, env_http_headers in config.toml's model_providers, or in
// a -c override of command), each only when archiplan has it.
func codexEnv(command []string) []string {
	names := append(append([]string(nil), codexPassed...), codexConfigVars(command)...)
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "LC_") {
			names = append(names, k)
		}
	}
	extra := map[string]string{}
	for _, k := range names {
		if v, ok := os.LookupEnv(k); ok && !passedAlready(k) {
			extra[k] = v
		}
	}
	return proc.Env(extra)
}

func passedAlready(k string) bool {
	for _, p := range proc.Passed {
		if p == k {
			return true
		}
	}
	return false
}

// codexProviders is what codexEnv reads of config.toml: the variables each model provider names.
type codexProviders struct {
	ModelProviders map[string]struct {
		EnvKey         string            `toml:"env_key"`
		EnvHTTPHeaders map[string]string `toml:"env_http_headers"`
	} `toml:"model_providers"`
}

// codexConfigVars are the variables codex's configuration names for its model providers: in
// $CODEX_HOME/config.toml (~/.codex/config.toml without CODEX_HOME), and in the -c overrides of
// the app-server's command. A file codex cannot read either gives none; codex says why itself.
func codexConfigVars(command []string) []string {
	home := os.Getenv("CODEX_HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = filepath.Join(h, ".codex")
		}
	}
	var vars []string
	if b, err := os.ReadFile(filepath.Join(home, "config.toml")); err == nil && len(b) < 1<<20 {
		var cfg codexProviders
		if toml.Unmarshal(b, &cfg) == nil {
			for _, p := range cfg.ModelProviders {
				if p.EnvKey != "" {
					vars = append(vars, p.EnvKey)
				}
				for _, v := range p.EnvHTTPHeaders {
					vars = append(vars, v)
				}
			}
		}
	}
	for i, a := range command {
		var o string
		switch {
		case (a == "-c" || a == "--config") && i+1 < len(command):
			o = command[i+1]
		case strings.HasPrefix(a, "--config="):
			o = strings.TrimPrefix(a, "--config=")
		case strings.HasPrefix(a, "-c") && len(a) > 2:
			o = a[2:]
		}
		vars = append(vars, overrideVars(o)...)
	}
	sort.Strings(vars)
	return vars
}

// overrideVars are the variables one -c KEY=VALUE override names: a provider's env_key, or the
// values of its env_http_headers (a dotted key naming one header, or an inline table).
func overrideVars(o string) []string {
	key, value, ok := strings.Cut(o, "=")
	if !ok {
		return nil
	}
	key = strings.TrimSpace(key)
	if !strings.HasPrefix(key, "model_providers.") {
		return nil
	}
	var doc map[string]any
	if toml.Unmarshal([]byte("v = "+value), &doc) != nil {
		doc = map[string]any{"v": strings.Trim(strings.TrimSpace(value), `"'`)} // codex takes a bare word as a string
	}
	switch {
	case strings.HasSuffix(key, ".env_key"):
		if s, ok := doc["v"].(string); ok {
			return []string{s}
		}
	case strings.HasSuffix(key, ".env_http_headers"):
		var out []string
		if m, ok := doc["v"].(map[string]any); ok {
			for _, v := range m {
				if s, ok := v.(string); ok {
					out = append(out, s)
				}
			}
		}
		return out
	case strings.Contains(key, ".env_http_headers."):
		if s, ok := doc["v"].(string); ok {
			return []string{s}
		}
	}
	return nil
}
