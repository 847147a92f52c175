// Package hooks will run the workspace's pre-apply and post-apply executables with timeouts (issue 4).
package hooks
