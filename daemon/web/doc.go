// Package web is the review page: a small HTTP server, started by `archiplan daemon --http`, that
// shows the inbox, each plan's preview with its pictures and findings, the history of applied
// plans and the views of the model, and lets a person approve, reject and revert.
//
// It adds no power a rename does not have: Approve and Reject are the inbox's renames, Revert is
// the ledger's revert. Everything the page needs from the workspace goes through Backend, so the
// page can be tested, and moved onto other packages, without touching the server.
//
// Security: every request needs the token printed at start (in the URL once, then a cookie);
// state-changing requests are POSTs carrying a CSRF token and an Origin (or Referer) of the page
// itself; responses carry a strict Content-Security-Policy; every asset is embedded; every text
// that comes from a plan or the model is escaped by html/template.
package web
