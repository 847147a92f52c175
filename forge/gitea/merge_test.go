package gitea

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/archiplan/archiplan/forge"
	"github.com/archiplan/archiplan/forge/internal/forgefake"
)

// mergeFake is a Gitea whose merge endpoint (POST /repos/{owner}/{repo}/pulls/{index}/merge, as
// Gitea's swagger describes MergePullRequestOption) answers as answer says for the n-th call.
func mergeFake(t *testing.T, answer func(n int, w http.ResponseWriter)) (*Client, *forgefake.Server) {
	t.Helper()
	var calls atomic.Int64
	s := forgefake.New(t, "/api/v1", map[string]string{"Accept": "application/json", "Authorization": "token t0ken"},
		[]forgefake.Endpoint{{Method: "POST", Path: "/repos/{owner}/{repo}/pulls/{index}/merge",
			Body: map[string]string{"Do": forgefake.String, "MergeCommitID": forgefake.String, "MergeMessageField": forgefake.String,
				"MergeTitleField": forgefake.String, "delete_branch_after_merge": forgefake.Boolean, "force_merge": forgefake.Boolean,
				"head_commit_id": forgefake.String, "merge_when_checks_succeed": forgefake.Boolean,
				"do": forgefake.String, "merge_title_field": forgefake.String, "merge_message_field": forgefake.String},
			Enum: map[string][]string{"do": {"merge", "rebase", "rebase-merge", "squash", "fast-forward-only", "manually-merged"}},
			Handle: func(w http.ResponseWriter, r *http.Request, p map[string]string, body map[string]any) {
				answer(int(calls.Add(1)), w)
			}}})
	f, err := forge.Open(forge.Config{Kind: "gitea", URL: s.URL, Repo: "team/models", Token: "t0ken"})
	if err != nil {
		t.Fatal(err)
	}
	c := f.(*Client)
	c.SetBackoff(0)
	return c, s
}

// busy is Gitea's answer while it is still checking whether a pull request can be merged.
func busy(w http.ResponseWriter) {
	forgefake.JSON(w, http.StatusMethodNotAllowed, map[string]string{"message": "Please try again later", "url": "https://gitea.example/api/swagger"})
}

// A merge Gitea answers "Please try again later" (405, still checking mergeability after the push)
// is asked again until Gitea merges it.
func TestGitea_MergeAsksAgainWhileGiteaChecks(t *testing.T) {
	c, s := mergeFake(t, func(n int, w http.ResponseWriter) {
		if n <= 2 {
			busy(w)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	if err := c.Merge(context.Background(), 7, "abc123", "plan: a kiosk\n\nthe body"); err != nil {
		t.Fatalf("merge after two answers of 405: %v", err)
	}
	if n := s.Count("POST", "/repos/{owner}/{repo}/pulls/{index}/merge"); n != 3 {
		t.Errorf("%d merge requests, want 3 (two answered 405, then merged)", n)
	}
}

// A merge Gitea keeps answering "Please try again later" ends when the context does, with an
// error saying what was waited for, both the forge's refusal and the context's end.
func TestGitea_MergeStillCheckingEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, s := mergeFake(t, func(n int, w http.ResponseWriter) {
		if n == 3 {
			cancel() // the person (or the daemon's stop) gives up while Gitea still checks
		}
		busy(w)
	})
	err := c.Merge(ctx, 7, "abc123", "plan: a kiosk")
	if err == nil {
		t.Fatal("merged, though Gitea never let it")
	}
	if !errors.Is(err, context.Canceled) || !errors.Is(err, forge.ErrRefused) ||
		!strings.Contains(err.Error(), "merge pull request 7: Gitea was still checking whether it can be merged") ||
		!strings.Contains(err.Error(), "Please try again later") {
		t.Errorf("error %q: want the wait's end and Gitea's answer, both wrapped", err)
	}
	if n := s.Count("POST", "/repos/{owner}/{repo}/pulls/{index}/merge"); n != 3 {
		t.Errorf("%d merge requests, want 3 (none after the context ended)", n)
	}
}
