package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
)

// BenchmarkLongSnapshot reads the stream snapshot of a session of 2,000
// python outputs of 8 KiB each (about 32 MiB of transcript) from the
// SQLite store in pages and encodes it as the daemon does; MB/s is the
// figure to read.
func BenchmarkLongSnapshot(b *testing.B) {
	ctx := context.Background()
	store := openStore(b)
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: store, Provider: &instantProvider{}, Kernel: instantKernel{}, Config: config()})
	defer svc.Close(ctx)
	sess, err := svc.CreateSession(ctx, b.TempDir(), "")
	if err != nil {
		b.Fatal(err)
	}
	output := strings.Repeat(strings.Repeat("x", 99)+"\n", 82)
	var items []albedo.Item
	for i := range 2000 {
		id := fmt.Sprint("call-", i)
		items = append(items,
			albedo.Item{Kind: albedo.KindToolCall, CallID: id, ToolName: "python", Arguments: `{"code":"print(1)","timeout_ms":60000}`},
			albedo.Item{Kind: albedo.KindToolOutput, CallID: id, ToolName: "python", Text: output, Result: &albedo.CellResult{Status: albedo.CellOK, Output: output}})
	}
	if _, err := store.Commit(ctx, albedo.Commit{SessionID: sess.ID, Items: items}); err != nil {
		b.Fatal(err)
	}
	var size int64
	b.ResetTimer()
	for b.Loop() {
		sub, err := svc.SubscribeFrom(ctx, sess.ID, albedo.SubscribeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		size = 0
		err = sub.ReadSnapshot(ctx, func(page []albedo.Event) error {
			for i := range page {
				data, err := json.Marshal(&page[i])
				if err != nil {
					return err
				}
				size += int64(len(data))
			}
			return nil
		})
		sub.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(size)
}
