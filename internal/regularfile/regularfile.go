// Package regularfile writes listings to regular files with system calls
// made outside Go's scheduler, where the system allows (Linux).
//
// A write of a listing's part to the page cache takes 50-500 us. After
// about 20 us in a system call, the scheduler's monitor takes the
// writer's processor and wakes another thread to run it; that thread finds
// nothing to run, but on two cores it takes one from the other worker,
// and the writer waits for a processor when its call returns. A write to a
// regular file does not wait for a reader, so holding the processor
// through it blocks nothing that could run. (A network or FUSE filesystem
// can still stall a write; the listing waits for it as it would anyway,
// and so does a garbage collection that starts meanwhile.) 1M random
// valid sgx543 words listed to a file made 600-1,100 context switches,
// and make 150-290 this way (docs/limits.md, nineteenth session). Pipes
// and terminals, which wait for their reader, are not written here.
package regularfile
