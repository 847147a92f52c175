// Package policy is the workspace's rules as code: Rego policies kept in policy/*.rego, evaluated
// by an embedded Open Policy Agent on what a plan changes (plans.Delta), and the owners
// (policy/owners.yaml) whose approvals a plan needs for what it touches. A policy that cannot be
// read, compiled or evaluated refuses every plan with its reason; it never passes one silently.
//
// Every module's `deny` and `warn` sets are read: each member is {rule, message, fix, object}
// (object optional: the id the finding is about). Its `approval` set asks for approvals:
// {rule, count, from, message} (from: people or group:NAME of owners.yaml; empty for anyone).
// Files named *_test.rego are the policy's own tests (`archiplan policy test`), never evaluated
// on plans.
package policy
