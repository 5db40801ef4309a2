// Package mapped keeps padd's resident set within a target by giving back
// the page-table entries of the files bbolt and Bleve map.
//
// A read of a mapped file maps the page it reads, and on Linux the 64 KB
// around it (the kernel's fault-around). Under a load that reads items
// all over a large database those pages soon cover the whole file, and
// they count as padd's RSS although they are the system's page cache,
// clean and shared. Releasing them (madvise MADV_DONTNEED on a shared,
// read-only file mapping) only drops padd's mappings: the pages stay
// cached, nothing is read from disk again, and the next read of one maps
// it back with a minor fault. That fault is the price of the target.
package mapped
