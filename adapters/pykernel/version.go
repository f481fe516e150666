package pykernel

import "context"

// PythonVersion returns the version of the Python that kernels in
// workspace run, such as "3.12.3", as the last kernel started there
// reported it, or "" while no kernel has started there. It never waits
// and starts nothing.
func (k *Kernels) PythonVersion(_ context.Context, workspace string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.versions[workspace]
}
