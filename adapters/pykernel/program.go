package pykernel

import (
	_ "embed"
	"encoding/json"
)

// The kernel program, run in one namespace in this order.
var (
	//go:embed python/tracer.py
	tracerSource string
	//go:embed python/cells.py
	cellsSource string
	//go:embed python/jobs.py
	jobsSource string
	//go:embed python/kernel.py
	kernelSource string
)

// bootstrap is the code given to "python3 -c". It refuses interpreters older
// than 3.9, takes the working directory (the workspace) off sys.path while
// the kernel imports its own modules, so that a workspace json.py never
// runs in their place, reads the program frame from fd 3, runs each file under the
// name "<albedo-kernel/FILE>", puts the working directory back first on
// sys.path for the cells, and hands the control reader to serve(). It
// leaves only the names sys and _albedo_kernel in __main__, which serve()
// removes.
const bootstrap = `import sys
if sys.version_info < (3, 9):
    sys.exit("albedo's python tool needs Python 3.9 or newer; %s is Python %s" % (sys.executable, sys.version.split()[0]))
def _albedo_kernel():
    here = sys.path.pop(0) if sys.path[:1] == [""] else None
    import json, os
    control = os.fdopen(3, "rb")
    head = control.read(4)
    if len(head) < 4:
        os._exit(0)
    namespace = {"__name__": "albedo_kernel"}
    for name, source in json.loads(control.read(int.from_bytes(head, "big"))):
        exec(compile(source, "<albedo-kernel/%s>" % name, "exec"), namespace)
    if here is not None:
        sys.path.insert(0, here)
    namespace["serve"](control)
_albedo_kernel()
`

// programFrame returns the body of the first frame a kernel reads: its
// files as a JSON array of [name, source] pairs, and, between jobs.py and
// kernel.py, a line naming the folder its jobs' spools go in (which the
// daemon removes when the kernel exits).
func programFrame(jobsFolder string) []byte {
	folder, err := json.Marshal(jobsFolder)
	if err != nil {
		panic("pykernel: encoding the jobs folder: " + err.Error()) // strings always encode
	}
	body, err := json.Marshal([][2]string{
		{"tracer.py", tracerSource},
		{"cells.py", cellsSource},
		{"jobs.py", jobsSource},
		{"launch", "JOBS_FOLDER = " + string(folder)},
		{"kernel.py", kernelSource},
	})
	if err != nil {
		panic("pykernel: encoding the kernel program: " + err.Error()) // strings always encode
	}
	return body
}
