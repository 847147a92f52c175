// Package store will hold every git access (go-git) and every write of the model file (issue 4). Nothing else imports go-git.
package store
