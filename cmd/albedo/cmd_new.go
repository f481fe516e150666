package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/albedo-agent/albedo/frontends/client"
)

func runNew(ctx context.Context, e *env, args []string) error {
	fs := flags(e, "new")
	provider := fs.String("provider", "", "bind the session to this provider (default: the active one)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageError{"new takes at most one workspace"}
	}
	workspace, err := workspaceDir(fs.Arg(0))
	if err != nil {
		return err
	}
	c, err := e.dial(ctx)
	if err != nil {
		return err
	}
	s, err := c.CreateSession(ctx, workspace, *provider)
	if errors.Is(err, client.ErrMaybeDelivered) {
		return fmt.Errorf("the daemon stopped while it was making the session, so albedo cannot know whether it made it; 'albedo sessions' lists the sessions (and starts a daemon)")
	}
	if err != nil {
		return err
	}
	if e.person {
		// A person reads it; scripts (stdout not a terminal) get JSON.
		fmt.Fprintf(e.stdout, "new session %s in %s (%s · %s)\n  albedo attach %s   opens it in the console\n  albedo run --session %s PROMPT   sends it a prompt\n",
			s.ID, s.Workspace, s.Provider, s.Model, s.ID, s.ID)
		return nil
	}
	return json.NewEncoder(e.stdout).Encode(map[string]any{
		"session": s.ID, "workspace": s.Workspace, "provider": s.Provider, "model": s.Model, "protocol": s.Protocol, "title": s.Title,
	})
}
