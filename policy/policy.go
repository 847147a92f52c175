package policy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/util"

	"github.com/archiplan/archiplan/internal/osfile"
	"github.com/archiplan/archiplan/plans"
)

// Dir is the workspace's folder of rules, beside the model.
const Dir = "policy"

// OwnersFile is the owners' file in Dir.
const OwnersFile = "owners.yaml"

// DefaultTimeout bounds one evaluation of the rules.
const DefaultTimeout = 5 * time.Second

// Limits on what is read of Dir: a policy is code people write, not data.
const (
	maxFile  = 1 << 20
	maxFiles = 200
)

var (
	// ErrBroken means the policy cannot be read or compiled: every plan is refused with the reason.
	ErrBroken = errors.New("the policy is broken")
	// ErrTimeout means the rules took longer than their time limit.
	ErrTimeout = errors.New("the rules took longer than their time limit")
)

// Rules are a workspace's compiled rules and owners; they implement plans.Rules.
type Rules struct {
	Timeout time.Duration
	// Now is the time a rule reads (time.now_ns, a change freeze); nil: the clock's. A rule's
	// verdict may change with it between a preview and its approval: the apply judges again and
	// refuses a verdict other than the preview's (the ledger's POLICY_VERDICT_CHANGED).
	Now     func() time.Time
	hash    string
	err     error // why the policy is broken; every Judge returns it
	modules map[string]string
	tests   map[string]string
	owners  *Owners
	query   *rego.PreparedEvalQuery
	refs    []ruleRef
}

// ruleRef is one of the sets a module defines that archiplan reads.
type ruleRef struct {
	pkg  string // data.x.y
	name string // deny, warn, approval
}

// Load reads and compiles the rules of a workspace (root/policy/*.rego and owners.yaml). It
// returns nil when the workspace has no rules. A policy that cannot be read or compiled is
// returned too, broken: it refuses every plan with its reason.
func Load(root string) *Rules {
	dir := filepath.Join(root, Dir)
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	r := &Rules{Timeout: DefaultTimeout, modules: map[string]string{}, tests: map[string]string{}}
	if err == nil && !fi.IsDir() {
		err = fmt.Errorf("%s is not a folder (archiplan follows no link)", Dir)
	}
	var files map[string][]byte
	if err == nil {
		files, err = readDir(dir)
	}
	r.hash = hashOf(files, err)
	if err != nil {
		r.err = fmt.Errorf("%w: %v", ErrBroken, err)
		return r
	}
	if len(files) == 0 {
		return nil
	}
	for name, b := range files {
		switch {
		case name == OwnersFile:
			r.owners, err = parseOwners(b)
			if err != nil {
				r.err = fmt.Errorf("%w: %s/%s: %v", ErrBroken, Dir, name, err)
				return r
			}
		case strings.HasSuffix(name, "_test.rego"):
			r.tests[Dir+"/"+name] = string(b)
		case strings.HasSuffix(name, ".rego"):
			r.modules[Dir+"/"+name] = string(b)
		}
	}
	if err := r.compile(); err != nil {
		r.err = fmt.Errorf("%w: %s", ErrBroken, oneLine(err))
	}
	return r
}

// oneLine is a compiler's error on one line per problem, file and line first, without the
// source excerpt OPA draws under it.
func oneLine(err error) string {
	var errs ast.Errors
	if !errors.As(err, &errs) || len(errs) == 0 {
		line, _, _ := strings.Cut(err.Error(), "\n")
		return line
	}
	var parts []string
	for _, e := range errs {
		where := ""
		if e.Location != nil {
			where = fmt.Sprintf("%s:%d: ", e.Location.File, e.Location.Row)
		}
		parts = append(parts, where+e.Code+": "+e.Message)
	}
	return strings.Join(parts, "; ")
}

// readDir reads the regular files of dir ending in .rego or named owners.yaml: never through a
// link, each capped.
func readDir(dir string) (map[string][]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".rego") && name != OwnersFile {
			continue
		}
		if len(files) == maxFiles {
			return nil, fmt.Errorf("%s holds more than %d rule files", Dir, maxFiles)
		}
		if !e.Type().IsRegular() {
			return nil, fmt.Errorf("%s/%s is not a regular file (archiplan follows no link)", Dir, name)
		}
		f, err := osfile.OpenNoFollow(filepath.Join(dir, name), os.O_RDONLY, 0)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
		f.Close()
		if err != nil {
			return nil, err
		}
		if len(b) > maxFile {
			return nil, fmt.Errorf("%s/%s is larger than 1 MiB", Dir, name)
		}
		files[name] = b
	}
	return files, nil
}

func hashOf(files map[string][]byte, err error) string {
	h := sha256.New()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	if err != nil {
		fmt.Fprintf(h, "error\x00%v", err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Hash changes whenever a rule file or the owners change.
func (r *Rules) Hash() string { return r.hash }

// Err is why the policy is broken (nil when it is not).
func (r *Rules) Err() error { return r.err }

// Owners are the owners of the workspace (nil without owners.yaml).
func (r *Rules) Owners() *Owners { return r.owners }

var parserOptions = ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true}

// unreached are OPA's builtins that reach past the plan and the model: the network (a request, a
// name lookup), the process (its environment and configuration) and its files (a JSON schema's
// "$ref": "file:///..." is read by json.match_schema and json.verify_schema: any file archiplan's
// user may read, uncapped, and a pipe or a terminal, /proc/self/fd/0, waits for ever past the
// time limit), or that run on past the time limit (strings.render_template's Go template ranges
// over an integer as long as it is told, never stopped). A pull takes the team's rules as they
// come (shown, not held): with these, a colleague's rule could send every plan and the model's
// names to a server of theirs each time the daemon previews, put what a file holds into a
// finding (the preview, the report the inbox's planners read, the archive the remote carries), or
// stop the daemon's previews. A rule that calls one does not compile (POLICY_ERROR, naming it).
var unreached = map[string]bool{"http.send": true, "net.lookup_ip_addr": true, "opa.runtime": true,
	"json.match_schema": true, "json.verify_schema": true, "strings.render_template": true}

// capabilities are OPA's builtins less unreached, and no host a request or lookup may reach.
func capabilities() *ast.Capabilities {
	c := ast.CapabilitiesForThisVersion()
	kept := c.Builtins[:0]
	for _, b := range c.Builtins {
		if !unreached[b.Name] {
			kept = append(kept, b)
		}
	}
	c.Builtins, c.AllowNet = kept, []string{}
	return c
}

// compile parses the modules, finds the deny, warn and approval sets they define, and prepares
// one query that reads them all.
func (r *Rules) compile() error {
	names := make([]string, 0, len(r.modules))
	for n := range r.modules {
		names = append(names, n)
	}
	sort.Strings(names)
	seen := map[ruleRef]bool{}
	opts := append([]func(*rego.Rego){rego.StrictBuiltinErrors(true), rego.SetRegoVersion(ast.RegoV1), rego.Capabilities(capabilities())}, regoFunctions()...)
	for _, n := range names {
		m, err := ast.ParseModuleWithOpts(n, r.modules[n], parserOptions)
		if err != nil {
			return err
		}
		for _, rule := range m.Rules {
			name := rule.Head.Name.String()
			if len(rule.Head.Reference) > 0 {
				name = rule.Head.Reference[0].String()
			}
			if name != "deny" && name != "warn" && name != "approval" {
				continue
			}
			ref := ruleRef{pkg: m.Package.Path.String(), name: name}
			if !seen[ref] {
				seen[ref] = true
				r.refs = append(r.refs, ref)
			}
		}
		opts = append(opts, rego.ParsedModule(m))
	}
	if len(r.refs) == 0 {
		if len(r.modules) > 0 {
			return fmt.Errorf("no module of %s defines deny, warn or approval: nothing would ever be judged", Dir)
		}
		return nil
	}
	var q []string
	for i, ref := range r.refs {
		q = append(q, fmt.Sprintf("r%d = %s.%s", i, ref.pkg, ref.name))
	}
	opts = append(opts, rego.Query(strings.Join(q, "; ")))
	pq, err := rego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		return err
	}
	r.query = &pq
	return nil
}

// Judge evaluates the rules on a delta, within the time limit, and adds the owners' approvals.
func (r *Rules) Judge(ctx context.Context, d *plans.Delta) (*plans.Judgement, error) {
	if r.err != nil {
		return nil, r.err
	}
	j := &plans.Judgement{}
	if r.query != nil {
		if err := r.eval(ctx, d, j); err != nil {
			return nil, err
		}
	}
	if r.owners != nil {
		j.Approvals = append(r.owners.approvals(d), j.Approvals...)
		for i := range j.Approvals {
			j.Approvals[i].From = r.owners.expand(j.Approvals[i].From)
		}
	}
	return j, nil
}

func (r *Rules) eval(ctx context.Context, d *plans.Delta, j *plans.Judgement) error {
	var doc any
	if err := util.UnmarshalJSON(d.JSON(), &doc); err != nil {
		return err
	}
	input, err := ast.InterfaceToValue(doc)
	if err != nil {
		return err
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(withModel(ctx, d.Model), timeout)
	defer cancel()
	eo := []rego.EvalOption{rego.EvalParsedInput(input)}
	if r.Now != nil {
		eo = append(eo, rego.EvalTime(r.Now()))
	}
	rs, err := r.query.Eval(ctx, eo...)
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("%w (%s)", ErrTimeout, timeout)
	}
	if err != nil {
		return errors.New(oneLine(err))
	}
	if len(rs) == 0 {
		return errors.New("the rules gave no answer: write deny, warn and approval as sets (deny contains f if { ... })")
	}
	for i, ref := range r.refs {
		v := rs[0].Bindings[fmt.Sprintf("r%d", i)]
		items, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s.%s is not a set: write it as `%s contains {...} if { ... }`", ref.pkg, ref.name, ref.name)
		}
		for _, it := range items {
			if err := r.add(j, ref, it); err != nil {
				return err
			}
		}
	}
	sort.SliceStable(j.Approvals, func(a, b int) bool { return j.Approvals[a].Rule < j.Approvals[b].Rule })
	sort.SliceStable(j.Findings, func(a, b int) bool {
		x, y := j.Findings[a], j.Findings[b]
		if x.Rule != y.Rule {
			return x.Rule < y.Rule
		}
		if x.Object != y.Object {
			return x.Object < y.Object
		}
		return x.Message < y.Message
	})
	return nil
}

// add reads one member of a deny, warn or approval set.
func (r *Rules) add(j *plans.Judgement, ref ruleRef, it any) error {
	where := strings.TrimPrefix(ref.pkg, "data.") + "." + ref.name
	obj, ok := it.(map[string]any)
	if !ok {
		return fmt.Errorf("%s holds %s: each member is an object {rule, message, fix}", where, shortJSON(it))
	}
	str := func(k string) (string, error) {
		v, ok := obj[k]
		if !ok {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%s: %q of %s is not a string", where, k, shortJSON(it))
		}
		return s, nil
	}
	rule, err := str("rule")
	if err != nil {
		return err
	}
	if rule == "" {
		return fmt.Errorf("%s holds %s without a rule id", where, shortJSON(it))
	}
	msg, err := str("message")
	if err != nil {
		return err
	}
	if ref.name == "approval" {
		a := plans.Approval{Rule: rule, Count: 1, Message: msg}
		if c, ok := obj["count"]; ok {
			n, ok := c.(json.Number)
			cnt, err := n.Int64()
			if !ok || err != nil || cnt < 1 || cnt > 100 {
				return fmt.Errorf("%s: count of %s is not a number from 1 to 100", where, shortJSON(it))
			}
			a.Count = int(cnt)
		}
		if f, ok := obj["from"]; ok {
			list, ok := f.([]any)
			if !ok {
				return fmt.Errorf("%s: from of %s is not a list of names", where, shortJSON(it))
			}
			for _, x := range list {
				s, ok := x.(string)
				if !ok {
					return fmt.Errorf("%s: from of %s is not a list of names", where, shortJSON(it))
				}
				a.From = append(a.From, s)
			}
		}
		j.Approvals = append(j.Approvals, a)
		return nil
	}
	if msg == "" {
		return fmt.Errorf("%s holds %s without a message", where, shortJSON(it))
	}
	fix, err := str("fix")
	if err != nil {
		return err
	}
	object, err := str("object")
	if err != nil {
		return err
	}
	sev := plans.Error
	if ref.name == "warn" {
		sev = plans.Warning
	}
	j.Findings = append(j.Findings, plans.RuleFinding{Severity: sev, Rule: rule, Message: msg, Fix: fix, Object: object})
	return nil
}

func shortJSON(v any) string {
	var b bytes.Buffer
	_ = json.NewEncoder(&b).Encode(v)
	s := strings.TrimSpace(b.String())
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
