// Package projectfiles reads the project instruction files albedo sends
// the model: the user's own $ALBEDO_HOME/AGENTS.md, then from the
// repository root (the nearest ancestor of the workspace holding .git, or
// else the workspace) down to the workspace, in each folder the first
// usable one of AGENTS.override.md, AGENTS.md and CLAUDE.md; and the
// Agent Skills offered, each a folder holding a SKILL.md, in
// $ALBEDO_HOME/skills and from the workspace up to the repository root in
// .albedo/skills, .agents/skills and .claude/skills. *Files implements
// albedo.InstructionSource and albedo.SkillReader.
package projectfiles
