package config

// validateMemory checks the memory and compaction keys of the agent
// defaults, naming the key to change.
func (d *AgentDefaults) validateMemory() error {
	if d.CompactionThreshold < -1 || (d.CompactionThreshold > 0 && d.CompactionThreshold < 1000) {
		return errorf("agents.defaults.compaction_threshold is %d: use a token count of at least 1000, 0 for the default of 64000, or -1 to compact only on /compact", d.CompactionThreshold)
	}
	if d.MemoryMaxBytes != 0 && (d.MemoryMaxBytes < 512 || d.MemoryMaxBytes > 1<<20) {
		return errorf("agents.defaults.memory_max_bytes is %d: use a size between 512 and 1048576 bytes, or 0 for the default of 12288", d.MemoryMaxBytes)
	}
	switch d.Learning {
	case "", "on", "off":
	default:
		return errorf("agents.defaults.learning is %q: use \"on\" or \"off\"", d.Learning)
	}
	switch d.LearnScope {
	case "", "person", "session", "shared":
	default:
		return errorf("agents.defaults.learn_scope is %q: use \"person\" (the default: facts follow the person across channels), \"session\" (facts stay in their conversation) or \"shared\" (facts go to MEMORY.md)", d.LearnScope)
	}
	switch d.DreamMode {
	case "", "off", "record", "full":
	default:
		return errorf("agents.defaults.dream_mode is %q: use \"off\", \"record\" or \"full\"", d.DreamMode)
	}
	return nil
}
