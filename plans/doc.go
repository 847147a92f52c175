// Package plans will extract, validate, preview and apply change plans in memory (issue 3).
package plans
