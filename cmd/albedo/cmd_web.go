package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

func runWeb(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "web")
	printURL := fs.Bool("print-url", false, "print the one-time address instead of opening it")
	revoke := fs.Bool("revoke", false, "log every browser out (their cookies stop working)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{"web takes no arguments"}
	}
	c, err := e.dial(ctx)
	if err != nil {
		return err
	}
	if *revoke {
		if err := c.RevokeWebLogins(ctx); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, "every browser is logged out of albedo's web page")
		return nil
	}
	t, err := c.WebTicket(ctx)
	if err != nil {
		return err
	}
	url := c.WebURL(t)
	if *printURL {
		fmt.Fprintln(e.stdout, url)
		return nil
	}
	if err := openBrowser(ctx, url); err != nil {
		fmt.Fprintf(e.stderr, "albedo: could not open a browser (%v); open this address within a minute, once:\n", err)
		fmt.Fprintln(e.stdout, url)
		return nil
	}
	fmt.Fprintln(e.stdout, "opened albedo's web page in the browser")
	return nil
}

// openBrowser opens url with $BROWSER, or the system's opener.
func openBrowser(ctx context.Context, url string) error {
	var argv []string
	switch {
	case os.Getenv("BROWSER") != "":
		argv = append(strings.Fields(os.Getenv("BROWSER")), url)
	case runtime.GOOS == "darwin":
		argv = []string{"open", url}
	default:
		argv = []string{"xdg-open", url}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", argv[0], err)
	}
	return nil
}
