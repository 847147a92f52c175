// Package store is every git access (go-git) and, as it grows, every write of the model file.
// Nothing else imports go-git. It reads the model at HEAD by blob, never from the work tree.
package store
