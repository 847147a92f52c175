package store

import (
	"context"
	"errors"
	"fmt"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
)

// PushBranch sets a branch of the remote to commit, replacing what it held (a plan's pull-request
// branch is archiplan's own: each preview makes it again on the base it was previewed on); with
// expect, only while the branch still holds expect (the push is refused otherwise). The commit is
// named first by a local ref under refs/archiplan/push/, which the push sends; the credentials
// are the remote's as Push finds them (a header, never a command line or a URL).
func (w *Workspace) PushBranch(ctx context.Context, remote, commit, branch, expect string) error {
	if commit == "" || branch == "" {
		return fmt.Errorf("push %s: no commit or branch", remote)
	}
	local := plumbing.ReferenceName("refs/archiplan/push/" + branch)
	if err := w.git().Storer.SetReference(plumbing.NewHashReference(local, plumbing.NewHash(commit))); err != nil {
		return err
	}
	spec := config.RefSpec("+" + local.String() + ":refs/heads/" + branch)
	if err := spec.Validate(); err != nil {
		return fmt.Errorf("push %s to %s: %w", short(commit), branch, err)
	}
	var require []config.RefSpec
	if expect != "" {
		require = []config.RefSpec{config.RefSpec(expect + ":refs/heads/" + branch)}
	}
	err := w.call(ctx, "push", remote, func(ctx context.Context, c *remoteCall) error {
		return w.git().PushContext(ctx, &git.PushOptions{RemoteName: remote, RemoteURL: c.url, RefSpecs: []config.RefSpec{spec},
			Auth: c.auth, CABundle: c.caBundle, InsecureSkipTLS: c.insecure, ProxyOptions: c.proxy, Force: true,
			RequireRemoteRefs: require})
	})
	if errors.Is(err, git.NoErrAlreadyUpToDate) {
		err = nil
	}
	if err != nil {
		return redacted{err}
	}
	return nil
}

// BranchName is the short name of the branch checked out ("main").
func (w *Workspace) BranchName() (string, error) {
	b, err := w.branch()
	if err != nil {
		return "", err
	}
	return b.Short(), nil
}

// BranchAt is the commit a branch of the remote holds now, as the remote itself says (git's
// ls-remote), "" when it has no such branch.
func (w *Workspace) BranchAt(ctx context.Context, remote, branch string) (string, error) {
	var at string
	err := w.call(ctx, "fetch", remote, func(ctx context.Context, c *remoteCall) error {
		r, err := w.git().Remote(remote)
		if err != nil {
			return err
		}
		refs, err := r.ListContext(ctx, &git.ListOptions{Auth: c.auth, CABundle: c.caBundle, InsecureSkipTLS: c.insecure, ProxyOptions: c.proxy})
		if err != nil {
			return err
		}
		for _, ref := range refs {
			if ref.Name() == plumbing.NewBranchReferenceName(branch) {
				at = ref.Hash().String()
			}
		}
		return nil
	})
	if err != nil {
		return "", redacted{err}
	}
	return at, nil
}
