// Package store is every git access (go-git) and every write of the model file: the workspace's
// lock, the model at HEAD read by blob, commits built from a base tree and published by
// compare-and-swap, recovery after a crash, the history and its trailers, and fetch and push for
// teams. Nothing else imports go-git.
package store
