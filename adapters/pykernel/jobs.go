package pykernel

import (
	"os"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// jobState is what the daemon knows of a kernel's background jobs: the
// process group of each (its leader's pid), kept until the kernel exits so
// that what a job left running dies with the kernel, and which still run.
type jobState struct {
	groups  map[int]int // job id → pid
	running map[int]bool
	dirs    map[string]bool // spool folders the kernel made for jobs
}

// jobEvent updates the job state from a kernel's job event, and passes on
// the end of a job that nothing read.
func (p *process) jobEvent(ev event) {
	p.mu.Lock()
	if p.jobs.groups == nil {
		p.jobs = jobState{groups: map[int]int{}, running: map[int]bool{}, dirs: map[string]bool{}}
	}
	switch ev.Type {
	case "job_started":
		p.jobs.groups[ev.Job] = ev.PID
		p.jobs.running[ev.Job] = true
		if ev.Dir != "" {
			p.jobs.dirs[ev.Dir] = true
		}
	case "job_ended":
		delete(p.jobs.running, ev.Job)
	}
	p.mu.Unlock()
	if ev.Type == "job_wake" && p.onJob != nil {
		end := albedo.JobEnd{ID: ev.Job, ExitCode: ev.Exit, Duration: time.Duration(ev.DurationMS) * time.Millisecond}
		go p.onJob(p.sessionID, end)
	}
}

// runningJobs counts the kernel's jobs that still run.
func (p *process) runningJobs() int {
	if p.gone() {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.jobs.running)
}

// killJobs kills the process group of every job the kernel started.
func (p *process) killJobs() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pid := range p.jobs.groups {
		killGroup(pid)
	}
}

// removeJobDirs removes the spool folders of the jobs of a kernel that
// exited.
func (p *process) removeJobDirs() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for dir := range p.jobs.dirs {
		if err := os.RemoveAll(dir); err != nil {
			p.log.Warn("removing the output of background jobs", "dir", dir, "err", err)
		}
	}
}
