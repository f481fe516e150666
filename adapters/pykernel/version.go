package pykernel

import "context"

// PythonVersion returns the version of the Python that kernels in
// workspace run, such as "3.12.3": as the last kernel started there
// reported it, or else as ProbeVersion learnt it for the default
// interpreter, or "" while neither is known. It never waits and starts
// nothing.
func (k *Kernels) PythonVersion(_ context.Context, workspace string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if v, ok := k.versions[workspace]; ok {
		return v
	}
	return k.defaultVersion
}
