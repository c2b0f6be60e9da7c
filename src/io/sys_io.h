/* sys_io.h: the system calls of an output that can fail midway, through a table, so
 * that tests can make the Nth write, copy, fsync, close or rename fail and check what
 * the writer promises for every N.
 */
#ifndef OSH_IO_SYS_IO_H
#define OSH_IO_SYS_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct sys_io {
	ssize_t (*write)(int fd, const void *buf, size_t n);
	/* copy_file_range(in, off, out, out_off, n, 0): n bytes of `in` from *off put at
	 * *out_off of out (out's file position when out_off is NULL), both advanced. */
	ssize_t (*copy)(int in, int64_t *off, int out, int64_t *out_off, size_t n);
	int (*fsync)(int fd);
	int (*close)(int fd);
	int (*rename)(const char *from, const char *to);
} sys_io;

extern const sys_io sys_io_default;

/* Writes all n bytes at buf to fd through io, retrying short writes and EINTR: 0, or
 * the errno of the failure (EIO for a write that wrote nothing). *done: the bytes
 * written either way. */
int sys_io_write_all(const sys_io *io, int fd, const void *buf, size_t n, size_t *done);

#endif
