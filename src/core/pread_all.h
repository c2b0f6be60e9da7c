/* pread_all.h: reading a stretch of a file whole. */
#ifndef OSH_CORE_PREAD_ALL_H
#define OSH_CORE_PREAD_ALL_H

#include <stddef.h>
#include <stdint.h>

/* Reads the n bytes of fd at off into buf, through short reads and EINTR. Returns 0,
 * -1 when the file ends first (it is shorter than the caller was told), or the errno
 * of a failed read. */
int pread_all(int fd, void *buf, size_t n, uint64_t off);

#endif
