// Package schemas will hold the plan and planning-context JSON Schemas, embedded and compiled once (issue 3).
package schemas
