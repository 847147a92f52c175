// Package daemon will watch plans/ and reconcile previews, approvals and applies (issue 5).
package daemon
