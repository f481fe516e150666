package web_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The browser tests drive the built binary's web page in Chromium. They
// run when ALBEDO_TEST_BROWSER names a Chromium binary (scripts/test.sh
// sets it, installing Chromium when missing); ALBEDO_TEST_BINARY names
// albedo, by default bin/albedo of this checkout. One browser serves the
// whole package; each test has tabs of its own.

// browser is the package's browser, nil when the browser tests are off.
var browser context.Context

func TestMain(m *testing.M) {
	os.Exit(runWithBrowser(m))
}

func runWithBrowser(m *testing.M) int {
	path := os.Getenv("ALBEDO_TEST_BROWSER")
	if path == "" {
		return m.Run()
	}
	// attacker.example resolves to the loopback, as a DNS rebinding
	// attack makes it.
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.WindowSize(1280, 900),
		chromedp.Flag("host-resolver-rules", "MAP attacker.example 127.0.0.1"))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		fmt.Fprintf(os.Stderr, "start %s: %v\n", path, err)
		return 1
	}
	browser = ctx
	return m.Run()
}

// tab is one tab of the browser, with what its page reported.
type tab struct {
	t   *testing.T
	ctx context.Context

	mu       sync.Mutex
	problems []string
}

// waitLimit bounds how long a test waits for one state of the page.
const waitLimit = 45 * time.Second

// newTab opens a tab for t. Every JavaScript exception, console error,
// security error (a blocked script or style) and dialog of its page fails
// t; so does a failed step, after a screenshot and the DOM are saved.
func newTab(t *testing.T) *tab {
	t.Helper()
	return openTab(t, true)
}

// openTab opens a tab for t; unless strict, what its page reports is
// not checked (a page of another site, which the browser's refusals make
// report errors).
func openTab(t *testing.T, strict bool) *tab {
	t.Helper()
	if browser == nil {
		t.Skip("the browser tests run with ALBEDO_TEST_BROWSER naming Chromium (scripts/test.sh sets it)")
	}
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	tb := &tab{t: t, ctx: ctx}
	// Reading the console also has the tab tell its scripts' contexts,
	// which evaluating needs.
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			switch {
			case !strict:
			case m.Type == chromedp.ConsoleException:
				tb.problem("exception: %s", m.Text)
			case m.Type == chromedp.ConsoleError && m.Source != "network":
				tb.problem("console error (%s): %s", m.Source, m.Text)
			}
		}
	}()
	if !strict {
		return tb
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			tb.problem("a dialog opened: %s %q", d.Type, d.Message)
			go chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
				_, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
				return err
			}))
		}
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		for _, p := range tb.problems {
			t.Errorf("the page reported %s", p)
		}
	})
	return tb
}

func (tb *tab) problem(format string, args ...any) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.problems = append(tb.problems, fmt.Sprintf(format, args...))
}

// do runs steps, failing the test (with a screenshot and the DOM saved)
// when one fails.
func (tb *tab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, waitLimit)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		tb.fail(what, err)
	}
}

// eval returns the value of a JavaScript expression in the page.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, waitLimit)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.fail("evaluate "+expr, err)
	}
	return v
}

// until waits until a JavaScript condition on the page's DOM holds.
func (tb *tab) until(what, cond string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, waitLimit)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(waitLimit))); err != nil {
		tb.fail(what, err)
	}
}

// fail saves a screenshot and the DOM of the page and fails the test.
func (tb *tab) fail(what string, err error) {
	tb.t.Helper()
	dir := filepath.Join(os.TempDir(), "albedo-browser-failures", strings.ReplaceAll(tb.t.Name(), "/", "_"))
	ctx, cancel := context.WithTimeout(tb.ctx, 10*time.Second)
	defer cancel()
	saved := ""
	if os.MkdirAll(dir, 0o755) == nil {
		if shot, e := chromedp.Run(ctx, chromedp.FullScreenshot(100)); e == nil {
			os.WriteFile(filepath.Join(dir, "screenshot.png"), shot, 0o644)
		}
		if html, e := chromedp.Run(ctx, chromedp.Evaluate[string]("document.documentElement.outerHTML")); e == nil {
			os.WriteFile(filepath.Join(dir, "dom.html"), []byte(html), 0o644)
		}
		saved = " (screenshot and DOM in " + dir + ")"
	}
	tb.t.Fatalf("%s: %v%s", what, err, saved)
}
