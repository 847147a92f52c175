// Package schemas holds the plan vocabulary (Ops) and the JSON Schemas made from it: one per plan
// version, and the report's. The schema files are generated, embedded and compiled once.
package schemas
