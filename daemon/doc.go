// Package daemon serves a workspace: it watches the inbox (its parent, git's refs and the
// configuration file too), and in idempotent passes over the whole inbox and HEAD previews new and
// changed plans, applies approved ones and lets the ledger reject what cannot be applied. It
// holds the watch-and-reconcile loop only: the inbox's file protocol is daemon/inbox, the
// operation (apply, revert, sync, archive, log) is daemon/ledger, and the review page is
// daemon/web.
package daemon
