/* temp_guard.h: while a write is in progress, a signal that would end the process
 * removes its temporary file first, then takes its course (see temp_guard.c: which
 * signals, and how the previous handlers are kept). The handlers are process-wide,
 * installed by the first write in progress and restored by the last.
 */
#ifndef OSH_IO_TEMP_GUARD_H
#define OSH_IO_TEMP_GUARD_H

/* A write begins: the handlers are in place, and a slot is claimed for its temporary
 * file (its number, -1 when all are in use: the write goes unprotected). */
int temp_guard_begin(void);

/* temp_create (temp_file.h), the file armed in `slot` in the same instant: a signal
 * arrives either before it exists or after the handler knows about it. */
int temp_guard_create(const char *dir, const char *base, char **path, int slot);

/* The write ended (its temporary file renamed or removed): the slot freed, and the
 * previous handlers back when it was the last in progress. */
void temp_guard_end(int slot);

/* osh_write_abandon_all (api/devices.h): every temporary file of a write in flight is
 * removed, for a caller about to exit on a signal. Async-signal-safe. */
void write_abandon_all(void);

#endif
