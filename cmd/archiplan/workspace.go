package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/archixml"
	"github.com/archiplan/archiplan/daemon/inbox"
	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/hooks"
	"github.com/archiplan/archiplan/internal/settings"
	"github.com/archiplan/archiplan/plans"
	"github.com/archiplan/archiplan/store"
)

// workspaceError maps errors of the workspace to the contract's exit statuses.
func workspaceError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ledger.ErrRefused), errors.Is(err, ledger.ErrConflict), errors.Is(err, ledger.ErrAlreadyReverted),
		errors.Is(err, ledger.ErrNoSuchPlan), errors.Is(err, store.ErrDirty), errors.Is(err, inbox.ErrBadName),
		errors.Is(err, ledger.ErrBadInverse), errors.Is(err, ledger.ErrRevertApprovals), errors.Is(err, ledger.ErrRevertDenied), errors.Is(err, ledger.ErrRevertModel),
		errors.Is(err, ledger.ErrRevertOfRevert):
		return codedError{exitRefused, err}
	}
	return codedError{exitNoUsable, err}
}

func (c *config) workspace() (*store.Workspace, error) {
	ws, err := store.Open(c.repo, c.v.GetString("model"))
	if err != nil {
		return nil, codedError{exitNoUsable, err}
	}
	if why := store.ModelApart(ws.Model); why != "" {
		return nil, codedError{exitNoUsable, fmt.Errorf("%s: %s (.archiplan.yaml's model: a file apart from them, such as model.archimate; git mv moves it)", plans.ModelPlaceUnsafe, why)}
	}
	if why := inboxApart(ws, c.v.GetString("inbox")); why != "" {
		return nil, codedError{exitNoUsable, fmt.Errorf("%s: %s (.archiplan.yaml's inbox: a folder of its own, such as plans)", plans.InboxPlaceUnsafe, why)}
	}
	return ws, nil
}

// inboxApart says why the configured inbox would let planners write what archiplan trusts (see
// store.InboxApart), git's folder included wherever it lies; "" when it lies apart. An inbox
// outside the work tree is the person's choice and is not asked. The inbox is asked as it is
// named and as the file system finds it: `inbox: box` with box a link to hooks is the hooks.
func inboxApart(ws *store.Workspace, box string) string {
	abs := box
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(ws.Root, filepath.FromSlash(box))
	}
	gitDir := filepath.Clean(ws.GitPath(""))
	if why := placeApart(box, abs, ws.Root, gitDir, ws.Model); why != "" {
		return why
	}
	real, root, realGit := resolved(abs), resolved(ws.Root), resolved(gitDir)
	if real == filepath.Clean(abs) && root == filepath.Clean(ws.Root) && realGit == gitDir {
		return ""
	}
	if why := placeApart(box, real, root, realGit, ws.Model); why != "" {
		return fmt.Sprintf("%s (through a link: it is %s)", why, real)
	}
	return ""
}

// placeApart is inboxApart's question of one path abs of the inbox box, in the work tree root
// with git's folder gitDir.
func placeApart(box, abs, root, gitDir, model string) string {
	if rel, err := filepath.Rel(gitDir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Sprintf("the inbox %q lies inside git's folder %s", box, gitDir)
	}
	if rel, err := filepath.Rel(abs, gitDir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Sprintf("the inbox %q holds git's folder %s", box, gitDir)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	if why := store.InboxApart(filepath.ToSlash(rel), model); why != "" {
		return strings.Replace(why, fmt.Sprintf("%q", filepath.ToSlash(rel)), fmt.Sprintf("%q", box), 1)
	}
	return ""
}

// resolved is p with every link on its way followed, as far as p exists (the rest joined as it
// is named: the daemon makes the inbox's folders where the links lead).
func resolved(p string) string {
	p = filepath.Clean(p)
	for rest := ""; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// openWorkspace reads the configuration and opens the workspace a command works on.
func openWorkspace(cmd *cobra.Command) (*config, *store.Workspace, error) {
	cfg, err := newConfig(cmd)
	if err != nil {
		return nil, nil, err
	}
	ws, err := cfg.workspace()
	if err != nil {
		return nil, nil, err
	}
	return cfg, ws, nil
}

func (c *config) hooks(ws *store.Workspace) hooks.Runner {
	return hooks.Runner{Dir: filepath.Join(ws.Root, "hooks"), Timeout: c.v.GetDuration("hooks.timeout"), Trust: ws.GitPath(hooks.TrustFile)}
}

func initCmd() *cobra.Command {
	var model, plannerGroup string
	c := &cobra.Command{
		Use:   "init [DIR] [--model FILE]",
		Short: "Make DIR a workspace: git repository, model (FILE, or the example), plans/, config, first commit",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if dir == "." {
				if err := insideRepository(dir); err != nil {
					return err
				}
			}
			seed, err := archixml.Example().Save()
			if err != nil {
				return err
			}
			if isExchangeFile(model) {
				if seed, err = importExchange(model, false); err != nil {
					return err
				}
			} else if model != "" {
				if seed, err = os.ReadFile(model); err != nil {
					return usageError{err}
				}
				if _, err := archixml.Load(seed); err != nil {
					return codedError{exitNoUsable, fmt.Errorf("%s: %w", model, err)}
				}
			}
			where, err := initModelPath(dir, model != "")
			if err != nil {
				return err
			}
			if why := store.ModelApart(where.model); why != "" {
				step := "name a model apart from them in " + settings.File + " (model: PATH)"
				if where.found {
					step = "it is the folder's only model: move it out of there (to " + filepath.Base(filepath.FromSlash(where.model)) + ", say), then archiplan init again"
				}
				return codedError{exitNoUsable, fmt.Errorf("%s: %s: nothing is made; %s", plans.ModelPlaceUnsafe, why, step)}
			}
			if model == "" {
				// the folder's own model is committed as it is: one Archi cannot open is refused, not
				// made the workspace's model every later command fails on
				at := filepath.Join(dir, filepath.FromSlash(where.model))
				if cur, err := os.ReadFile(at); err == nil {
					if _, err := archixml.Load(cur); err != nil {
						return codedError{exitNoUsable, fmt.Errorf("%s: %w: it is not made the workspace's model", at, err)}
					}
				}
			}
			if model != "" {
				// the workspace has its model: --model would be ignored, and every command after
				// would work on a model other than the one named
				at := filepath.Join(dir, filepath.FromSlash(where.model))
				if cur, err := os.ReadFile(at); err == nil && !bytes.Equal(cur, seed) {
					return usageError{fmt.Errorf("%s is a workspace with its own model, %s: --model %s does not replace it; for a new workspace: archiplan init NEWDIR --model %s; to make it this one's model, copy it over %s and commit",
						dir, where.model, model, model, at)}
				}
			}
			ws, commit, err := store.Init(dir, store.InitOptions{Model: where.model, Inbox: where.inbox, Seed: seed,
				Author: store.Signature{Name: "archiplan", Email: "archiplan@localhost"}})
			if err != nil {
				return codedError{exitNoUsable, err}
			}
			if where.found {
				fmt.Fprintf(cmd.OutOrStdout(), "found the model %s in %s: it is the workspace's model (model: in .archiplan.yaml)\n", ws.Model, dir)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "workspace %s: model %s, inbox %s/, HEAD %s\n", ws.Root, ws.Model, where.inbox, short(commit))
			if plannerGroup != "" {
				if err := sharePlannerInbox(ws, plannerGroup); err != nil {
					return codedError{exitNoUsable, err}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "inbox plans/ is sticky and writable by group %s; plans are adopted when previewed, and only adopted plans can be approved\n", plannerGroup)
			}
			return nil
		},
	}
	c.Flags().StringVar(&model, "model", "", "the model to start from: a .archimate file, or an Exchange Format .xml file, imported first (default: the built-in example)")
	c.Flags().StringVar(&plannerGroup, "planner-group", "", "planners write the inbox as this group and cannot approve their own plans (see docs/security.md)")
	return c
}

// insideRepository refuses to init the current folder when it is a folder inside a git
// repository: the person is in their repository and means it, but a workspace is a whole
// repository (the model, the inbox and the configuration are paths from its root, and every
// command finds the workspace as git finds the repository), and a second repository made here would
// hide this folder from the one around it. A DIR named is made a repository of its own, as asked.
func insideRepository(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	root, err := store.FindRoot(abs)
	if err != nil || root == abs {
		return nil
	}
	rel, _ := filepath.Rel(root, abs)
	return usageError{fmt.Errorf("%s: %s is inside the git repository %s, and a workspace is a whole repository: "+
		"to make that repository the workspace, run archiplan init in %s (it finds a model kept in %s/ when it is the only one); "+
		"for a workspace of its own, archiplan init NEWDIR (or git init here first, to nest a repository on purpose)",
		plans.InitInsideRepository, abs, root, root, filepath.ToSlash(rel))}
}

// initPaths are where init puts the model and the inbox; found: the model is one the folder
// held already at a path of its own.
type initPaths struct {
	model, inbox string
	found        bool
}

// initModelPath is where init finds or puts the model: the model .archiplan.yaml names when DIR has
// one; else model.archimate, unless DIR holds no model there but holds models elsewhere (a
// repository that keeps its model in a folder, a model copied in under its own name): one is the
// workspace's model, as it is; several are refused, for the example model (or --model's copy)
// beside them would be a second model nobody edits.
func initModelPath(dir string, given bool) (initPaths, error) {
	p := initPaths{model: settings.Default("model"), inbox: settings.Default("inbox")}
	if data, err := os.ReadFile(filepath.Join(dir, settings.File)); err == nil {
		v := settings.New()
		if err := settings.Read(v, data); err != nil {
			return p, usageError{fmt.Errorf("read %s: %w", filepath.Join(dir, settings.File), err)}
		}
		p.model, p.inbox = v.GetString("model"), v.GetString("inbox")
		return p, nil
	}
	if given {
		return p, nil
	}
	if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p.model))); err == nil || !errors.Is(err, os.ErrNotExist) {
		return p, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "model", "folder.xml")); err == nil {
		// coArchi 1 (Grafico): one XML file per object, no .archimate; the example would sit beside it
		return p, codedError{exitNoUsable, fmt.Errorf("%s: %s keeps its model in coArchi 1's form (model/folder.xml, a file for each object), which archiplan does not read: save the model from Archi as one .archimate file (File > Save As, or coArchi 2), then archiplan init --model FILE",
			plans.InitCoArchi1, dir)}
	}
	var found []string
	root := filepath.Clean(dir)
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return filepath.SkipDir
		}
		if len(found) > 10 {
			return filepath.SkipAll
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || strings.Count(rel, string(filepath.Separator)) >= 4) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.EqualFold(filepath.Ext(d.Name()), ".archimate") {
			found = append(found, filepath.ToSlash(rel))
		}
		return nil
	})
	switch len(found) {
	case 0:
		return p, nil
	case 1:
		p.model, p.found = found[0], true
		return p, nil
	}
	return p, codedError{exitNoUsable, fmt.Errorf("%s holds several models (%s) and none at %s: name the workspace's model in %s (model: PATH) and run archiplan init again",
		dir, strings.Join(found, ", "), p.model, filepath.Join(dir, settings.File))}
}

func short(h string) string { return store.Short(h) }

func applyCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "apply PLAN",
		Short: "Validate and apply one plan now, as an approval would: one commit",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			oneShotGC(ws)
			path := inboxPath(cfg.inbox(ws), args[0], inbox.Pending, inbox.Approved)
			raw, err := inbox.ReadFile(path, inbox.MaxPlanBytes)
			if errors.Is(err, inbox.ErrNotRegular) || errors.Is(err, inbox.ErrTooLarge) {
				return codedError{exitRefused, err}
			}
			if errors.Is(err, os.ErrNotExist) {
				// apply plans/NAME.approved once more after it was refused: the inbox says where NAME went
				if e, ferr := cfg.inbox(ws).Find(inbox.NameOf(path)); ferr == nil {
					err = fmt.Errorf("%s: no such file; the inbox holds %s, %s: archiplan status says what to do with it", path, e.File, e.State)
				} else {
					err = fmt.Errorf("%s: no such file, and no plan of the inbox has that NAME: apply takes a pending or approved plan's NAME or a plan file's path (archiplan status lists the inbox's plans)", path)
				}
			}
			if err != nil {
				return usageError{err}
			}
			name := inbox.NameOf(path)
			if name == "" {
				return usageError{fmt.Errorf("%s: a plan file is NAME.json (or NAME.approved), NAME matching %s", path, inbox.NamePattern)}
			}
			cx, _, err := contextOf(path)
			if err != nil {
				return codedError{exitRefused, err}
			}
			led := cfg.ledger(ws)
			if err := led.Pull(context.Background()); err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "archiplan: pull:", err)
			}
			out := cmd.OutOrStdout()
			box := cfg.inbox(ws)
			abs, _ := filepath.Abs(path)
			inInbox := filepath.Dir(abs) == box.Dir
			var res *ledger.Result
			if e, ferr := box.Find(name); inInbox && ferr == nil && e.File == filepath.Base(path) && e.State == inbox.Approved {
				// an approval in the inbox applies only as the daemon would apply it: bound to the
				// preview archiplan recorded (the file may have been swapped since the person read it)
				res, err = led.Approve(context.Background(), e)
				if errors.Is(err, ledger.ErrRepreview) {
					return codedError{exitRefused, fmt.Errorf("%w: read its new preview (archiplan validate %s), then approve again", err, box.Path(inbox.PlanFile(name)))}
				}
				if errors.Is(err, ledger.ErrRefused) {
					fmt.Fprintf(out, "not applied: %s (see %s)\n", res.Reason, box.Path(inbox.PreviewFile(name)))
				}
			} else {
				res, err = led.Apply(context.Background(), ledger.Request{Name: name, File: path, Raw: raw, Context: cx})
			}
			if errors.Is(err, ledger.ErrAlreadyApplied) {
				fmt.Fprintf(out, "%s was applied before, in commit %s; nothing to do\n", res.PlanID, short(res.Commit))
				if inInbox {
					box.Clear(name)
				}
				return nil
			}
			if res != nil && res.Outcome != nil && err != nil {
				for _, f := range res.Outcome.Errors() {
					fmt.Fprintf(out, "  error %s: %s\n", f.Code, f.Message)
				}
			}
			if err != nil {
				return workspaceError(err)
			}
			if inInbox {
				box.Clear(name) // applied: its inbox files go, as when the daemon applies it
			}
			fmt.Fprintf(out, "applied %s in commit %s\n", res.PlanID, short(res.Commit))
			if res.Warning != "" {
				fmt.Fprintln(cmd.ErrOrStderr(), "archiplan: warning:", res.Warning)
			}
			if err := pushAfter(cmd, led); err != nil {
				return err
			}
			if res.HookNote != "" {
				fmt.Fprintln(out, res.HookNote)
			}
			return nil
		},
	}
	return c
}

// pushAfter pushes what a command committed, when the workspace pushes: a plan the remote made
// stale is reported and rejected in the inbox (its local commit is gone), an unreachable remote
// leaves the commit to push later.
func pushAfter(cmd *cobra.Command, led *ledger.Ledger) error {
	if r := led.Remote(); !r.Push || r.Name == "" {
		return nil
	}
	return pushNow(cmd, led)
}

func pushNow(cmd *cobra.Command, led *ledger.Ledger) error {
	return pushNowCtx(context.Background(), cmd, led)
}

func pushNowCtx(ctx context.Context, cmd *cobra.Command, led *ledger.Ledger) error {
	r := led.Remote()
	res, err := led.Sync(ctx)
	out := cmd.OutOrStdout()
	if res != nil {
		if res.Pushed {
			fmt.Fprintf(out, "pushed to %s\n", r.Name)
		}
		for _, d := range res.Dropped {
			fmt.Fprintf(out, "%s: %s\n", d.PlanID, d.Reason)
		}
		for _, id := range res.OnRemote {
			fmt.Fprintf(out, "%s: the remote had applied it already; not applied again\n", id)
		}
		if len(res.Dropped) > 0 {
			return silent{codedError{exitRefused, errors.New("stale after the remote moved")}}
		}
	}
	switch {
	case err == nil:
	case errors.Is(err, store.ErrUnreachable), errors.Is(err, store.ErrPushRejected), errors.Is(err, store.ErrLocked):
		fmt.Fprintf(out, "not pushed (the commit stays local; archiplan pushes it later): %v\n", err)
	default:
		// not a moment's trouble (a diverged branch, history that cannot be read): retrying later
		// does not help, a person must look
		fmt.Fprintf(out, "not pushed: %v\n", err)
		return silent{codedError{exitNoUsable, err}}
	}
	return nil
}

func revertCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "revert PLAN-ID|COMMIT",
		Short: "Undo one applied plan in a new commit (deliver: pull-request: propose it as a pull request, as pr --revert)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			oneShotGC(ws)
			led := cfg.ledger(ws)
			if err := led.Pull(context.Background()); err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "archiplan: pull:", err)
			}
			if prs, err := cfg.deliversPRs(); err != nil {
				return err
			} else if prs {
				// the team reviews on the forge: the revert is a pull request too
				flow, err := cfg.flowOn(ws, led)
				if err != nil {
					return err
				}
				return openRevert(cmd.Context(), cmd.OutOrStdout(), flow, args[0])
			}
			res, err := led.Revert(context.Background(), args[0])
			if errors.Is(err, ledger.ErrNoSuchPlan) {
				err = appliedUnder(ws, args[0], err)
			}
			if err != nil {
				return workspaceError(err) // its refusal starts with its code (the ledger's)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "reverted %s (applied in %s) in commit %s\n", res.PlanID, short(res.RevertsCommit), short(res.Commit))
			return pushAfter(cmd, led)
		},
	}
}

// appliedUnder adds to revert's refusal of target the PLAN-IDs applied under the NAME target (a
// NAME, as apply and status take, is not a PLAN-ID: the id is NAME and the hash of its plan).
func appliedUnder(ws *store.Workspace, target string, err error) error {
	if inbox.CheckName(target) != nil {
		return err
	}
	var ids []string
	for _, e := range ledger.AppliedAs(ws, target) {
		if !slices.Contains(ids, e.PlanID) {
			ids = append(ids, e.PlanID)
		}
	}
	if len(ids) == 0 {
		return fmt.Errorf("%w (revert takes a PLAN-ID or a COMMIT, as archiplan log lists them)", err)
	}
	return fmt.Errorf("%w: %s is a plan's NAME; revert takes its PLAN-ID (archiplan revert %s), as archiplan log lists it", err, target, strings.Join(ids, " or "))
}

func logCmd() *cobra.Command {
	var asJSON, all bool
	var object string
	c := &cobra.Command{
		Use:   "log [--all] [--object ID] [--json]",
		Short: "Applied and reverted plans, read back from git; --all: every plan's events from the audit; --object: one object's history",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			if all {
				return printAudit(cmd, ws, asJSON)
			}
			if object != "" {
				return printObjectLog(cmd, ws, object, asJSON)
			}
			logged, err := ledger.LogChecked(ws)
			if err != nil {
				return codedError{exitNoUsable, err}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				b, _ := json.MarshalIndent(map[string]any{"format_version": "1", "entries": logged.Entries, "unverified": logged.Unverified}, "", "  ")
				fmt.Fprintln(out, string(b))
				return nil
			}
			printLogEntry := func(e ledger.Entry) {
				// a colleague's commit may hold any text: shown, never obeyed by the terminal
				fmt.Fprintf(out, "%s %s %-10s %s  %s\n", short(e.Commit), e.Date, e.Kind, plans.ShowHidden(e.PlanID), plans.ShowHidden(e.Summary))
				// who: the person the apply's commit names as approving it, and who committed
				// when another (a revert, a git revert: its author)
				switch {
				case e.ApprovedBy != "" && e.ApprovedBy != e.Author:
					fmt.Fprintf(out, "    approved by %s, committed by %s\n", plans.ShowHidden(e.ApprovedBy), plans.ShowHidden(e.Author))
				case e.ApprovedBy != "":
					fmt.Fprintf(out, "    approved by %s\n", plans.ShowHidden(e.ApprovedBy))
				default:
					fmt.Fprintf(out, "    by %s\n", plans.ShowHidden(e.Author))
				}
			}
			for _, e := range logged.Entries {
				printLogEntry(e)
				if e.UndoneBy != "" {
					fmt.Fprintf(out, "    undone by commit %s, not made by archiplan (Archi saving over the apply?): the plan is no longer in the model\n", short(e.UndoneBy))
				}
			}
			if len(logged.Unverified) > 0 {
				fmt.Fprintf(out, "\nUnverified: %d commit(s) whose trailers claim a plan the commit does not hold (anyone who can commit can write a trailer):\n", len(logged.Unverified))
				for _, u := range logged.Unverified {
					printLogEntry(u.Entry)
					fmt.Fprintf(out, "    unverified: %s\n", u.Why)
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().BoolVar(&all, "all", false, "every event of every plan (received, previewed, answered, approved, rejected, withdrawn, applied, reverted), from refs/archiplan/audit")
	c.Flags().StringVar(&object, "object", "", "every commit that created, changed or deleted the object with this id, and how (from the models)")
	return c
}

// printObjectLog prints the history of one object, newest first.
func printObjectLog(cmd *cobra.Command, ws *store.Workspace, id string, asJSON bool) error {
	entries, err := ledger.ObjectLog(ws, id)
	if err != nil {
		return codedError{exitNoUsable, err}
	}
	out := cmd.OutOrStdout()
	if asJSON {
		b, _ := json.MarshalIndent(map[string]any{"format_version": "1", "object": id, "entries": entries}, "", "  ")
		fmt.Fprintln(out, string(b))
		return nil
	}
	if len(entries) == 0 {
		fmt.Fprintf(out, "no commit on this branch changed %s\n", plans.ShowHidden(id))
		return nil
	}
	for _, e := range entries {
		fmt.Fprintf(out, "%s %s %s\n", short(e.Commit), e.Date, plans.ShowHidden(e.Author))
		if e.Merge {
			fmt.Fprintln(out, "    a merge: what it brought, against its first parent")
		}
		if e.MergedBy != "" {
			fmt.Fprintf(out, "    on a branch merged in %s\n", short(e.MergedBy))
		}
		if e.PlanID != "" {
			fmt.Fprintf(out, "    plan %s: %s", plans.ShowHidden(e.PlanID), plans.ShowHidden(e.Summary))
			if e.ApprovedBy != "" {
				fmt.Fprintf(out, " (approved by %s)", plans.ShowHidden(e.ApprovedBy))
			}
			fmt.Fprintln(out)
			if e.Intent != "" {
				fmt.Fprintf(out, "    asked for: %s\n", quoted(e.Intent))
			}
		}
		for _, l := range e.Changes {
			fmt.Fprintf(out, "    %s\n", plans.ShowHidden(l))
		}
	}
	return nil
}

func syncCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "sync",
		Short: "Pull from and push to the team's remote now (what the daemon does on its timer)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			r := cfg.remoteOf()
			if r.Name == "" {
				return usageError{errors.New("no remote configured: set remote (and pull, push) in .archiplan.yaml")}
			}
			r.Pull, r.Push = true, true
			led := ledger.New(ledger.Config{Workspace: ws, Inbox: cfg.inbox(ws), Options: optionsOf(cfg), Hooks: cfg.hooks(ws),
				ApprovedBy: ws.Identity(), Remote: r})
			ws.TryNow() // a person asks: an earlier credential failure's backoff does not hold this
			// SIGINT or SIGTERM ends a sync at once: the network holds no lock
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			before, _ := ws.Head()
			if err := led.Pull(ctx); err != nil {
				return codedError{exitNoUsable, err}
			}
			if err := pushNowCtx(ctx, cmd, led); err != nil {
				return err
			}
			// what the pull brought, said: a sync that prints nothing leaves a person guessing
			if after, err := ws.Head(); err == nil && after != before {
				fmt.Fprintf(cmd.OutOrStdout(), "pulled from %s: HEAD %s, was %s\n", r.Name, short(after), short(before))
			} else if err == nil {
				fmt.Fprintf(cmd.OutOrStdout(), "nothing to pull from %s: HEAD %s\n", r.Name, short(after))
			}
			return nil
		},
	}
}

// sharePlannerInbox sets the inbox up for planners running as other users of group: sticky and
// group-writable (a planner can add files, and rename or delete only its own), owned by this user;
// and it turns adoption on in the configuration (planner_group), committed.
func sharePlannerInbox(ws *store.Workspace, group string) error {
	g, err := user.LookupGroup(group)
	if err != nil {
		return err
	}
	gid, err := strconv.Atoi(g.Gid)
	if err != nil {
		return err
	}
	dir := filepath.Join(ws.Root, "plans")
	if err := os.Chown(dir, os.Getuid(), gid); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o770|os.ModeSticky); err != nil {
		return err
	}
	cfgPath := filepath.Join(ws.Root, ".archiplan.yaml")
	data, err := os.ReadFile(cfgPath)
	if err != nil {
		return err
	}
	if strings.Contains(string(data), "planner_group:") {
		return nil
	}
	data = append(data, []byte("# planners write the inbox as this group; only plans archiplan adopted can be approved\nplanner_group: "+group+"\n")...)
	head, err := ws.Head()
	if err != nil {
		return err
	}
	lock, err := ws.Lock()
	if err != nil {
		return err
	}
	defer lock.Unlock()
	_, err = ws.Publish(store.Change{Base: head, Files: map[string][]byte{".archiplan.yaml": data},
		Message: "archiplan: planners write the inbox as group " + group + "\n", Author: ws.Identity(), When: time.Now()})
	return err
}
