package main

import (
	"fmt"
	"runtime"

	"github.com/covpipe/covpipe/internal/version"
	"github.com/urfave/cli/v2"
)

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:   "version",
		Usage:  "print the covpipe version",
		Action: printVersion,
	}
}

// printVersion prints covpipe's version, the platform and the Go version
// it was built with (`covpipe version`, `covpipe --version`).
func printVersion(c *cli.Context) error {
	_, err := fmt.Fprintf(c.App.Writer, "covpipe %s %s/%s %s\n", version.String(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	return err
}
