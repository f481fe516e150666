package engine

import (
	"context"
	"crypto/sha256"
	"slices"
	"sync"

	"github.com/albedo-agent/albedo/albedo"
)

// turnInstructions are the instructions of one turn, read at its first
// request and kept for the rest of it.
type turnInstructions struct {
	text  string
	used  []albedo.InstructionUse
	files map[string][32]byte
}

// changedFiles lists the sources that differ between two reads: edited,
// added or removed, in order.
func changedFiles(before, after map[string][32]byte) []string {
	var out []string
	for src, sum := range after {
		if old, ok := before[src]; !ok || old != sum {
			out = append(out, src)
		}
	}
	for src := range before {
		if _, ok := after[src]; !ok {
			out = append(out, src)
		}
	}
	slices.Sort(out)
	return out
}

// digests fingerprints each file of a set.
func digests(set albedo.InstructionSet) map[string][32]byte {
	out := make(map[string][32]byte, len(set.Files))
	for _, f := range set.Files {
		out[f.Source] = sha256.Sum256([]byte(f.Text))
	}
	return out
}

// projectInstructions reads the project's instruction files for a turn
// of sess, when a source is configured.
func (s *Service) projectInstructions(ctx context.Context, sess albedo.Session) albedo.InstructionSet {
	if s.projectFiles == nil {
		return albedo.InstructionSet{}
	}
	set, err := s.projectFiles.Instructions(ctx, sess.Workspace)
	if err != nil {
		s.log.Warn("read project instructions", "session", sess.ID, "err", err)
		return albedo.InstructionSet{Warnings: []string{"project instructions were not read: " + err.Error()}}
	}
	return set
}

// composeTurnInstructions builds the instructions of a turn of sess from
// albedo's own, the environment facts and the project's files.
func (s *Service) composeTurnInstructions(ctx context.Context, sess albedo.Session, set albedo.InstructionSet) turnInstructions {
	python := ""
	if v, ok := s.kernel.(albedo.PythonVersioner); ok {
		python = v.PythonVersion(ctx, sess.Workspace)
	}
	env := albedo.EnvironmentFacts(sess.Workspace, python, s.clock.Now())
	text, used := albedo.ComposeInstructions(s.instructionsFor(ctx, sess.ID), env, set)
	return turnInstructions{text: text, used: used, files: digests(set)}
}

// instructionState remembers a session's instruction files between
// turns, to tell the model when they changed.
type instructionState struct {
	mu sync.Mutex
	// known is false until a turn of this process read the files.
	known bool
	files map[string][32]byte
	// warnings, skills and used are those of the last read.
	warnings []string
	skills   []albedo.Skill
	used     []albedo.InstructionUse
}

// instructionsRead keeps what a turn read and returns the note its user
// message gets when files changed since the last turn noted them.
func (st *sessionState) instructionsRead(set albedo.InstructionSet) string {
	st.instr.mu.Lock()
	defer st.instr.mu.Unlock()
	st.instr.warnings, st.instr.skills = set.Warnings, set.Skills
	if !st.instr.known {
		return ""
	}
	if changed := changedFiles(st.instr.files, digests(set)); len(changed) > 0 {
		return albedo.InstructionsChangedNote(changed)
	}
	return ""
}

// instructionsNoted records that the model now knows the files of set.
func (st *sessionState) instructionsNoted(set albedo.InstructionSet) {
	st.instr.mu.Lock()
	defer st.instr.mu.Unlock()
	st.instr.known, st.instr.files = true, digests(set)
}

// instructionsSent records what a turn sent of each file.
func (st *sessionState) instructionsSent(used []albedo.InstructionUse) {
	st.instr.mu.Lock()
	defer st.instr.mu.Unlock()
	st.instr.used = used
}

// instructionWarnings returns the warnings of the session's last read.
func (st *sessionState) instructionWarnings() []string {
	st.instr.mu.Lock()
	defer st.instr.mu.Unlock()
	return slices.Clone(st.instr.warnings)
}
