package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/archiplan/archiplan/daemon/ledger"
	"github.com/archiplan/archiplan/daemon/publish"
	"github.com/archiplan/archiplan/internal/osfile"
	"github.com/archiplan/archiplan/store"
)

func publishCmd() *cobra.Command {
	var out, commit string
	var whole bool
	c := &cobra.Command{
		Use:   "publish [-o DIR] [--commit REV] [--whole]",
		Short: "Write the model at a commit as a static site for people without Archi: views, elements, relationships, folders, search, history",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, ws, err := openWorkspace(cmd)
			if err != nil {
				return err
			}
			oneShotGC(ws) // it reads the models once and exits, as apply
			if out == "" {
				if out = publishDir(cfg, ws); out == "" {
					return usageError{errors.New("publish: give -o DIR (or set publish: DIR in .archiplan.yaml)")}
				}
			}
			hash, err := ws.ResolveCommit(commit)
			if err != nil {
				return usageError{err}
			}
			write := publish.Publish
			if whole {
				write = publish.PublishWhole
			}
			var site *publish.Site
			err = publishLocked(ws, func() {
				fmt.Fprintln(cmd.ErrOrStderr(), "publish: waiting for another publish of this workspace (the daemon's?) to end")
			}, func() (err error) {
				site, err = write(ws, hash, out)
				return err
			})
			if errors.Is(err, publish.ErrNotSite) {
				return usageError{err}
			}
			if err != nil {
				return codedError{exitNoUsable, fmt.Errorf("publish: %w", err)}
			}
			if site.Incremental {
				fmt.Fprintf(cmd.OutOrStdout(), "published the model at %s into %s: %d pages written, %d removed, the others as they were (open %s)\n",
					store.Short(site.Commit), site.Dir, site.Pages, site.Removed, filepath.Join(site.Dir, "index.html"))
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "published the model at %s into %s: %d pages, %d files, %.1f MB (open %s)\n",
				store.Short(site.Commit), site.Dir, site.Pages, site.Files, float64(site.Bytes)/1e6, filepath.Join(site.Dir, "index.html"))
			return nil
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "", "the folder to write (default: the configuration's publish key); it must be new, empty or a site publish wrote")
	c.Flags().StringVar(&commit, "commit", "HEAD", "the commit whose model is published")
	c.Flags().BoolVar(&whole, "whole", false, "write every page again, even over a site of an earlier commit that could be updated (pages changed or removed by hand come back)")
	return c
}

// publishDir is the configuration's publish folder, relative to the workspace ("" when unset).
func publishDir(cfg *config, ws *store.Workspace) string {
	dir := cfg.v.GetString("publish")
	if dir == "" || filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join(ws.Root, dir)
}

// publisherOf is the daemon's publish step when the configuration has publish: DIR (nil without):
// after an apply of led's, it applies the same plan to the model it keeps (publish.Publisher).
func publisherOf(cfg *config, ws *store.Workspace, led *ledger.Ledger) func(commit string) error {
	dir := publishDir(cfg, ws)
	if dir == "" {
		return nil
	}
	p := publish.NewPublisher(ws, dir) // the daemon publishes one commit at a time
	p.Replays(led.Replay)
	return func(commit string) error {
		return publishLocked(ws, nil, func() error {
			_, err := p.Publish(commit)
			return err
		})
	}
}

// publishLocked runs write under the workspace's publish lock, an flock on
// .git/archiplan-publish.lock that the kernel releases when the process dies: the daemon's
// publisher and archiplan publish write the same site folder, and two writers interleaving
// would leave a site of neither. A second publish waits for the first (waiting, when set, says
// so first). The workspace's writer lock is not it: a publish takes long and must not stop an
// apply.
func publishLocked(ws *store.Workspace, waiting func(), write func() error) error {
	f, err := osfile.OpenNoFollow(ws.GitPath("archiplan-publish.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("publish lock: %w", err)
	}
	defer f.Close()
	if err := osfile.Lock(f, osfile.Exclusive|osfile.NoWait); errors.Is(err, osfile.ErrWouldBlock) {
		if waiting != nil {
			waiting()
		}
		err = osfile.Lock(f, osfile.Exclusive)
		if err != nil {
			return fmt.Errorf("publish lock: %w", err)
		}
	} else if err != nil {
		return fmt.Errorf("publish lock: %w", err)
	}
	defer osfile.Unlock(f)
	return write()
}
