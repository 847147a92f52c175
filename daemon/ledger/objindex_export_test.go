package ledger

// ObjectLogWalk is the history of one object without the index, for the tests and benchmarks
// that hold the index to it.
var ObjectLogWalk = objectLogWalk

// ObjectIndexDiffs counts the commits the index diffed, in this process.
func ObjectIndexDiffs() int64 { return objIndexDiffs.Load() }
