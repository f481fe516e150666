package compose

import (
	"context"
	"time"
)

// pruneEvery is how often the shadows of workspaces are pruned after the
// pruning that follows the start.
const pruneEvery = 6 * time.Hour

// startPruning prunes the shadows of workspaces in the background, as the
// assembly starts and then every pruneEvery, until Shutdown: off any
// turn's path, since a pruning gives way to every snapshot and rewind.
func (a *Assembly) startPruning() {
	if a.shadows == nil || a.stopPrune != nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	a.stopPrune, a.pruned = cancel, make(chan struct{})
	go func() {
		defer close(a.pruned)
		tick := time.NewTicker(pruneEvery)
		defer tick.Stop()
		for {
			n, err := a.shadows.Prune(ctx)
			if err != nil && ctx.Err() == nil {
				a.log.Warn("prune the snapshots of workspaces", "err", err)
			} else if n > 0 {
				a.log.Info("pruned the snapshots of workspaces", "snapshots", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
}

// stopPruning stops the background pruning and waits for it.
func (a *Assembly) stopPruning() {
	if a.stopPrune != nil {
		a.stopPrune()
		<-a.pruned
	}
}
