// Package memory holds the memory budget that concurrent jobs share: the
// memory the machine can give the process (Available), the Go runtime's
// soft memory limit while a run lasts (LimitRuntime), the heap's backing by
// transparent huge pages (HugePages, Linux), and byte sizes as flags and
// messages write them (ParseBytes, FormatBytes).
//
// May import: no package of this module.
package memory
