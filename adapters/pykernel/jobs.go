package pykernel

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// jobState is what the daemon knows of a kernel's background jobs: the
// process group of each (its leader's pid), kept until the kernel exits so
// that what a job left running dies with the kernel, which still run, and
// which ended with a wake not yet taken by Options.OnJobEnd. A job counts
// as running until its wake is taken: the session it wakes is not busy
// before then, and the idle reaper would otherwise stop the kernel whose
// globals the woken turn relies on.
type jobState struct {
	groups  map[int]int // job id → pid
	running map[int]bool
	waking  map[int]bool
}

// jobsFolder is where a kernel keeps its jobs' spools: albedo-jobs-PID in
// the TMPDIR of its environment (/tmp without one), as the kernel's
// jobs.py names it. The daemon removes this folder, and only this one,
// when the kernel exits: it never removes a folder the kernel names, for
// the kernel runs the model's code, which may send any event.
func jobsFolder(env []string, pid int) string {
	tmp := "/tmp"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok && v != "" {
			tmp = v
		}
	}
	return filepath.Join(tmp, "albedo-jobs-"+strconv.Itoa(pid))
}

// jobEvent updates the job state from a kernel's job event, and passes on
// the end of a job that nothing read.
func (p *process) jobEvent(ev event) {
	p.mu.Lock()
	if p.jobs.groups == nil {
		p.jobs = jobState{groups: map[int]int{}, running: map[int]bool{}, waking: map[int]bool{}}
	}
	wake := ev.Type == "job_wake" && p.onJob != nil
	switch {
	case ev.Type == "job_started":
		// The group is killed with the kernel only when it is one: the
		// daemon's to kill, not any process a forged event names. A
		// contained kernel's jobs end with its namespace.
		if !p.contained && jobOfKernel(p.pid, ev.PID) {
			p.jobs.groups[ev.Job] = ev.PID
		}
		p.jobs.running[ev.Job] = true
	case ev.Type == "job_ended":
		delete(p.jobs.running, ev.Job)
		if ev.Wakes && p.onJob != nil {
			p.jobs.waking[ev.Job] = true
		}
	case wake:
		p.jobs.waking[ev.Job] = true
	}
	p.mu.Unlock()
	if wake {
		end := albedo.JobEnd{ID: ev.Job, ExitCode: ev.Exit, Duration: time.Duration(ev.DurationMS) * time.Millisecond}
		go p.passOn(end)
	}
}

// passOn gives the end of a job nothing read to Options.OnJobEnd; the job
// stops counting as running once that has returned.
func (p *process) passOn(end albedo.JobEnd) {
	defer func() {
		p.mu.Lock()
		delete(p.jobs.waking, end.ID)
		p.mu.Unlock()
	}()
	p.onJob(p.sessionID, end)
}

// runningJobs counts the kernel's jobs that still run, or whose wake is
// not taken yet; none for no kernel (nil).
func (p *process) runningJobs() int {
	if p == nil || p.gone() {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.jobs.running) + len(p.jobs.waking)
}

// killJobs kills the process group of every job the kernel started.
func (p *process) killJobs() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pid := range p.jobs.groups {
		killGroup(pid)
	}
}

// removeJobsFolder removes the jobs' spool folder of a kernel that
// exited, if it made one. A link in its place is removed, not followed.
func (p *process) removeJobsFolder() {
	if p.jobsFolder == "" {
		return
	}
	if err := os.RemoveAll(p.jobsFolder); err != nil {
		p.log.Warn("removing the output of background jobs", "dir", p.jobsFolder, "err", err)
	}
}
