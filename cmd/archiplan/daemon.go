package main

import (
	"errors"

	"github.com/spf13/cobra"
)

func daemonCmd() *cobra.Command {
	var demo bool
	c := &cobra.Command{
		Use:   "daemon [--demo]",
		Short: "Watch and serve the workspace (not built yet)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return codedError{exitNoUsable, errors.New("the daemon is not built yet (issue 5); " +
				"archixml, the model layer it rests on, is: see README")}
		},
	}
	c.Flags().BoolVar(&demo, "demo", false, "first create ./archiplan-demo from the example model")
	return c
}
