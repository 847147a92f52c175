package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/internal/hidden"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// exitConflict is the merge driver's status when the models conflict: git then marks the path
// as conflicted (any status but 0 does).
const exitConflict = 1

// mergeDriverCmd is git's merge driver for .archimate files (init and setup-git register it):
// a three-way merge of the models, not of their lines. On a conflict the model is left as ours,
// the report goes to stderr and beside the model, and the status tells git.
func mergeDriverCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "merge-driver BASE OURS THEIRS [PATH]",
		Short: "git's merge driver for .archimate files: merges models object by object (ours is overwritten with the result)",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 3 || len(args) > 4 {
				return usageError{errors.New("merge-driver needs BASE OURS THEIRS [PATH] (git gives %O %A %B %P)")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var data [3][]byte
			for i, p := range args[:3] {
				b, err := inbox.ReadFile(p, int64(archixml.MaxModelBytes))
				if err != nil {
					return usageError{err}
				}
				data[i] = b
			}
			path := args[1]
			if len(args) == 4 {
				path = args[3]
			}
			out, conflicts, err := mergeModels(data, nil)
			if err != nil {
				return codedError{exitConflict, fmt.Errorf("merge %s: %w", path, err)}
			}
			if len(conflicts) > 0 {
				report := conflictReport(path, conflicts)
				fmt.Fprint(cmd.ErrOrStderr(), report)
				if err := store.WriteFileAtomic(reportPath(path), []byte(report), 0o644); err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), "archiplan:", err)
				}
				return silent{codedError{exitConflict, errors.New("the models conflict")}}
			}
			if err := store.WriteFileAtomic(args[1], out, 0o644); err != nil {
				return codedError{exitConflict, err}
			}
			_ = os.Remove(reportPath(path))
			return nil
		},
	}
}

// reportPath is where a merge's conflicts are written: beside the model.
func reportPath(model string) string { return model + ".conflicts.txt" }

// mergeModels merges theirs (data[2]) into ours (data[1]) on base (data[0]) with the person's
// resolutions: the merged file, or the conflicts left.
func mergeModels(data [3][]byte, res map[string]archixml.Resolution) ([]byte, []archixml.Conflict, error) {
	if data[0] == nil {
		return nil, nil, errors.New("the file has no common base (both sides added it)")
	}
	var ms [3]*archixml.Model
	var errs [3]error
	done := make(chan int, 3)
	for i := range data {
		go func() {
			ms[i], errs[i] = archixml.LoadOwned(data[i])
			done <- i
		}()
	}
	for range data {
		<-done
	}
	for i, side := range []string{"base", "ours", "theirs"} {
		if errs[i] != nil {
			return nil, nil, fmt.Errorf("%s: %w", side, errs[i])
		}
	}
	conflicts := archixml.Merge(ms[0], ms[1], ms[2], res)
	if len(conflicts) > 0 {
		return nil, conflicts, nil
	}
	out, err := ms[1].Save()
	return out, nil, err
}

// conflictReport says each conflict in words: the object, the field, base, ours and theirs, and
// how to settle it. Every value is shown with the characters a person cannot see as their codes.
func conflictReport(path string, cs []archixml.Conflict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "archiplan: %d %s merging %s; the model is left as ours\n", len(cs), plural(len(cs), "conflict", "conflicts"), plans.ShowHidden(path))
	for _, c := range cs {
		fmt.Fprintf(&b, "\n%s (%s) %s:\n", plans.ShowHidden(c.Label), plans.ShowHidden(c.ID), plans.ShowHidden(c.Field))
		fmt.Fprintf(&b, "  base:   %s\n  ours:   %s\n  theirs: %s\n", value(c.Base), value(c.Ours), value(c.Theirs))
	}
	b.WriteString("\nSettle each with: archiplan resolve ID --ours | --theirs | --value TEXT [--field FIELD]\n")
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// value is a field's value in a report: quoted, cut at 200 characters.
func value(v string) string {
	if v == "(none)" {
		return v
	}
	r := []rune(v)
	if len(r) > 200 {
		v = string(r[:200]) + "…"
	}
	return hidden.Quote(v)
}

// setupGitCmd registers the merge driver and the diff text conversion for a clone (git does
// not carry configuration) and adds their lines to .gitattributes.
func setupGitCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "setup-git",
		Short: "Register archiplan's merge driver and diff text conversion for .archimate files in this clone",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := repoRoot(cmd)
			if err != nil {
				return err
			}
			ws, err := store.Open(root, "model.archimate")
			if err != nil {
				return workspaceError(err)
			}
			if err := ws.SetGitDrivers(); err != nil {
				return codedError{exitNoUsable, err}
			}
			attrsPath := filepath.Join(ws.Root, ".gitattributes")
			attrs, err := os.ReadFile(attrsPath)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return codedError{exitNoUsable, err}
			}
			out := cmd.OutOrStdout()
			if a, changed := store.GitAttributes(attrs); changed {
				if err := store.WriteFileAtomic(attrsPath, a, 0o644); err != nil {
					return codedError{exitNoUsable, err}
				}
				fmt.Fprintln(out, "wrote .gitattributes: commit it so that every clone merges models")
			}
			fmt.Fprintln(out, "git merges .archimate files with archiplan merge-driver in this clone")
			return nil
		},
	}
}

// repoRoot is the folder --repo names, or the current one.
func repoRoot(cmd *cobra.Command) (string, error) {
	dir, _ := cmd.Flags().GetString("repo")
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", codedError{exitNoUsable, err}
		}
	}
	return dir, nil
}

// mergeState is what resolve keeps under .git/ while a merge is in conflict: the person's
// choices, bound to the blobs of the conflict they were made on.
type mergeState struct {
	Path     string                         `json:"path"`
	Stages   [3]string                      `json:"stages"`
	Resolved map[string]archixml.Resolution `json:"resolved"`
}

// resolveCmd settles the conflicts a merge of models stopped on, one object at a time; once none
// is left it writes the merged model and stages it.
func resolveCmd() *cobra.Command {
	var ours, theirs bool
	var val, field, path string
	c := &cobra.Command{
		Use:   "resolve [OBJECT --ours|--theirs|--value TEXT [--field FIELD]]",
		Short: "Settle a conflict of a merge of models; without OBJECT, list the conflicts left",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			if path == "" {
				path = ws.Model
			}
			stages, ids, err := ws.MergeStages(path)
			if err != nil {
				return codedError{exitNoUsable, err}
			}
			state := readMergeState(ws, path, ids)
			out := cmd.OutOrStdout()
			_, conflicts, err := mergeModels(stages, state.Resolved)
			if err != nil {
				return codedError{exitNoUsable, err}
			}
			if len(args) == 1 {
				mine, err := conflictsToSettle(conflicts, args[0], field, ours, theirs, cmd.Flags().Changed("value"))
				if err != nil {
					return err
				}
				for _, x := range mine {
					r := archixml.Resolution{Side: archixml.Ours}
					switch {
					case theirs:
						r.Side = archixml.Theirs
					case cmd.Flags().Changed("value"):
						v := val
						r = archixml.Resolution{Value: &v}
					}
					state.Resolved[x.Key()] = r
					fmt.Fprintf(out, "settled %s %s\n", plans.ShowHidden(x.Label), plans.ShowHidden(x.Field))
				}
				if err := writeMergeState(ws, state); err != nil {
					return codedError{exitNoUsable, err}
				}
				var merged []byte
				merged, conflicts, err = mergeModels(stages, state.Resolved)
				if err != nil {
					return codedError{exitNoUsable, err}
				}
				if len(conflicts) == 0 {
					if err := ws.StageResolved(path, merged); err != nil {
						return codedError{exitNoUsable, err}
					}
					_ = os.Remove(filepath.Join(ws.Root, filepath.FromSlash(reportPath(path))))
					_ = os.Remove(ws.MergeStateFile())
					fmt.Fprintf(out, "no conflict left: the merged %s is written and staged; finish with git commit (or git merge --continue, git rebase --continue)\n", plans.ShowHidden(path))
					return nil
				}
			}
			if len(conflicts) == 0 {
				fmt.Fprintln(out, "no conflict left")
				return nil
			}
			report := conflictReport(path, conflicts)
			if err := store.WriteFileAtomic(filepath.Join(ws.Root, filepath.FromSlash(reportPath(path))), []byte(report), 0o644); err != nil {
				return codedError{exitNoUsable, err}
			}
			fmt.Fprint(out, report)
			return nil
		},
	}
	c.Flags().BoolVar(&ours, "ours", false, "keep ours")
	c.Flags().BoolVar(&theirs, "theirs", false, "take theirs")
	c.Flags().StringVar(&val, "value", "", "set this value (a name, documentation, a property's value, an attribute)")
	c.Flags().StringVar(&field, "field", "", "settle only this field of the object")
	c.Flags().StringVar(&path, "path", "", "the model in conflict (default: the workspace's model)")
	return c
}

// readMergeState is the resolutions chosen so far for the merge of path with stages ids: none
// unless the state file was written for this very merge.
func readMergeState(ws *store.Workspace, path string, ids [3]string) mergeState {
	state := mergeState{Path: path, Stages: ids, Resolved: map[string]archixml.Resolution{}}
	if b, err := os.ReadFile(ws.MergeStateFile()); err == nil {
		var old mergeState
		if json.Unmarshal(b, &old) == nil && old.Path == path && old.Stages == ids && old.Resolved != nil {
			state = old
		}
	}
	return state
}

// conflictsToSettle is the conflicts left on id (on its field, if one is named) that resolve
// settles with exactly one of --ours, --theirs or --value; a value settles one settable field.
func conflictsToSettle(conflicts []archixml.Conflict, id, field string, ours, theirs, byValue bool) ([]archixml.Conflict, error) {
	n := 0
	for _, x := range []bool{ours, theirs, byValue} {
		if x {
			n++
		}
	}
	if n != 1 {
		return nil, usageError{errors.New("resolve OBJECT needs one of --ours, --theirs or --value TEXT")}
	}
	var mine []archixml.Conflict
	for _, x := range conflicts {
		if x.ID == id && (field == "" || x.Field == field) {
			mine = append(mine, x)
		}
	}
	if len(mine) == 0 {
		return nil, usageError{fmt.Errorf("no conflict left on %s%s", plans.ShowHidden(id), fieldWords(field))}
	}
	if byValue && (len(mine) > 1 || !mine[0].Settable()) {
		if len(mine) > 1 {
			return nil, usageError{fmt.Errorf("%s has %d conflicts: say which with --field", plans.ShowHidden(id), len(mine))}
		}
		return nil, usageError{fmt.Errorf("the %s of %s is settled by --ours or --theirs, not a value", plans.ShowHidden(mine[0].Field), plans.ShowHidden(id))}
	}
	return mine, nil
}

func fieldWords(f string) string {
	if f == "" {
		return ""
	}
	return " (" + plans.ShowHidden(f) + ")"
}

func writeMergeState(ws *store.Workspace, s mergeState) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return store.WriteFileAtomic(ws.MergeStateFile(), b, 0o600)
}
