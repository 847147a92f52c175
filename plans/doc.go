// Package plans is the change plan (ArchiChangePlan): extraction of one JSON object from what a
// planner wrote, validation against the plan's JSON Schema, its meaning against the model and the
// workspace's policy (every finding with a stable code, a pointer and a snippet), the preview and
// the report, and the apply to a model in memory with the inverse that undoes it. It also makes the
// planning context and the planner prompt. It knows nothing of git, and of files only what it is
// handed; plans/planners talks to the planners themselves.
package plans
