package pipeline

// CompareMethods returns the comparison methods (kov, advanced, rdp, cdp,
// exact) implemented with package compare. Methods missing from the
// returned Registry are skipped as "not available in this build".
func CompareMethods() Registry {
	return Registry{}
}
