package main

import (
	"encoding/json"
	"fmt"

	"github.com/covpipe/covpipe/internal/version"
	"github.com/urfave/cli/v2"
)

func versionCommand() *cli.Command {
	return oneLineErrors(&cli.Command{
		Name:   "version",
		Usage:  "print the covpipe version",
		Flags:  []cli.Flag{switchFlag("json", "print it as JSON: version, go, platform, module, module_version, and the commit (and modified) when the binary knows them")},
		Action: printVersion,
	})
}

// printVersion prints covpipe's version, the platform and the Go version
// it was built with (`covpipe version`, `covpipe --version`), or with
// --json what the binary knows of its build (version.Build).
func printVersion(c *cli.Context) error {
	b := version.Build()
	if c.Bool("json") {
		out, err := json.MarshalIndent(b, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(c.App.Writer, "%s\n", out)
		return err
	}
	_, err := fmt.Fprintf(c.App.Writer, "covpipe %s %s %s\n", version.String(), b.Platform, b.Go)
	return err
}
