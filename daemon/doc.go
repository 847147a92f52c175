// Package daemon serves a workspace: it watches the inbox (and its parent and git's refs), and in
// idempotent passes over the whole inbox and HEAD previews new and changed plans, applies approved
// ones, and rejects what cannot be applied. It holds the apply and revert path the command line
// shares, and, for teams, the pull, push and rebase of archiplan's own commits over a git remote.
package daemon
