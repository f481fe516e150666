package main

import (
	"context"

	"github.com/albedo-agent/albedo/frontends/client"
	"github.com/albedo-agent/albedo/frontends/home"
)

// albedoHome returns the albedo home, once.
func (e *env) albedoHome() (string, error) {
	if e.home != "" {
		return e.home, nil
	}
	dir, err := home.Dir()
	if err != nil {
		return "", err
	}
	e.home = dir
	return dir, nil
}

// dial reaches the daemon, starting it when none runs.
func (e *env) dial(ctx context.Context) (*client.Client, error) {
	dir, err := e.albedoHome()
	if err != nil {
		return nil, err
	}
	return client.Dial(ctx, client.DialOptions{Home: dir})
}
