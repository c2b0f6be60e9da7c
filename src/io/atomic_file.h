/* atomic_file.h: replace a file so that readers see the old or the new content,
 * never a mix, and a failure leaves the old file and no debris (what a writer killed
 * by SIGKILL leaves, the next write into that directory removes).
 *
 * This is what an output means, not how fast it goes: the plain and the fast output
 * (output.h) write into the same temporary file, with the same refusals, fsync,
 * rename and messages; atomic_opts.plain chooses which, once. The system calls that
 * can fail midway go through a sys_io (sys_io.h).
 */
#ifndef OSH_IO_ATOMIC_FILE_H
#define OSH_IO_ATOMIC_FILE_H

#include "onnxshape.h"
#include "io/output.h"
#include "io/sys_io.h"

#include <sys/types.h>

/* Writes the new content of `dest`. Returns 0 or an errno value. */
typedef int (*produce_fn)(out_file *o, void *ctx);

/* The file the content was read from, as it was read. */
typedef struct source_id {
	dev_t dev;
	ino_t ino;
	uint64_t size;
	int64_t mtime_sec, mtime_nsec;
	const char *path; /* the path it was read by; NULL: not known */
} source_id;

typedef struct atomic_opts {
	bool in_place;       /* dest may be the source file */
	bool has_source;     /* src identifies the source file */
	source_id src;
	bool durable;        /* fsync the file before the rename and the directory after */
	/* The plain path (core/tuning.h): the content written through output_plain
	 * (this thread alone, with write), else output_fast. */
	bool plain;
	const sys_io *io;    /* NULL: sys_io_default */
} atomic_opts;

/* A write in progress: the temporary file exists (armed for the signal handlers,
 * and locked, so that no other write's sweep takes it for a dead writer's) from
 * atomic_open until atomic_commit or atomic_abort. */
typedef struct atomic_file {
	char *dest, *dir, *tmp; /* dest with a symbolic link resolved */
	int fd;                 /* the temporary file's */
	int slot;               /* its signal-handler slot, -1 for none */
	int mode_err;           /* errno of giving it dest's owner and mode, 0 */
	bool prefilled;         /* bytes were put in through fd before atomic_commit */
	bool durable;           /* atomic_opts' (the caller may change it before the commit) */
	bool plain;             /* atomic_opts' */
	const sys_io *io;
	/* dest is the source, or the path it was read by (atomic_guard_source): what dest
	 * names must still be `src`, unchanged, when the file is renamed over it. */
	bool guard;
	source_id src; /* its path not kept */
} atomic_file;

/* The directory a write to dest lands in (malloc'd into *dir): that of the file a
 * symbolic link dest leads to, as write_atomic follows it. A link that leads nowhere
 * is the error write_atomic would return. */
osh_status atomic_dest_dir(const char *dest, char **dir, osh_error *err);

/* write_atomic in two steps, so that bytes can go into the temporary file (at
 * offsets of the caller's choosing, through fd) before the content is produced:
 * atomic_open refuses what write_atomic refuses and creates the file; commit
 * produces into it (pre: what is in place already, or NULL; *skipped, when not NULL:
 * how much of it was not written again) and renames it over dest; abort removes it.
 * Both free f. */
osh_status atomic_open(const char *dest, const atomic_opts *opts, atomic_file **f, osh_error *err);
osh_status atomic_commit(atomic_file *f, produce_fn produce, void *ctx, const out_pre *pre, uint64_t *skipped,
			 osh_error *err);
void atomic_abort(atomic_file *f);

/* Whether f's destination (as f resolved it) is now the file opts names as the
 * source: atomic_open refuses it unless opts->in_place. */
bool atomic_dest_is_source(const atomic_file *f, const atomic_opts *opts);

/* Decides f->guard from opts (atomic_open does, from its own): a destination that is
 * the source file, or that is the path the source was read by (the same name in the
 * same directory, whatever file it names now), is written only over that very file,
 * unchanged since it was read. Another program may replace it meanwhile, in place
 * or by renaming a new file over it; its file is then left as it is, and
 * atomic_commit fails with ESTALE, the temporary file removed. */
void atomic_guard_source(atomic_file *f, const atomic_opts *opts);

/* Creates a temporary file beside dest (exclusively, with the default mode, or dest's
 * owner, group and mode where the process may give them), fills it with produce and
 * renames it over dest. A symbolic link dest is followed: the file it leads to is
 * replaced. A dest that exists and is not a regular file (a directory, FIFO, device
 * or socket) is refused, OSH_ERR_IO.
 *
 * The temporary file is named ".BASE.osh-XXXXXXXX.tmp" (BASE: dest's name, X: a
 * hexadecimal digit) and locked while the write runs; before creating it, the write
 * removes every file of that pattern in the directory that no live process holds
 * locked: what writers killed by SIGKILL (or a crash) left.
 *
 * With opts->durable, the file is on the disk before the rename (fsync) and the
 * rename after it (the directory's fsync): a power cut then leaves the old or the new
 * file. Without, readers and a crash of this process still see one or the other,
 * never a mix; after a power cut the file system decides (ext4 flushes a file renamed
 * over another before the rename; a new file may come back empty), as for a
 * compiler's output.
 *
 * While it runs, a signal that would end the process (one left to its default
 * action: SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ, SIGSEGV, a real-time signal..., and
 * SIGINT and SIGTERM unless ignored, whoever handles them) has a handler unlink the
 * temporary file and then hand the signal on: to the handler installed before (SIGINT
 * and SIGTERM), or to the default action (the process dies of the signal as it would
 * have). The previous handlers are back in place when it returns. Safe to call from several
 * threads at once; the handlers are process-wide, installed by the first write in
 * progress and restored by the last. */
osh_status write_atomic(const char *dest, const atomic_opts *opts, produce_fn produce, void *ctx,
			osh_error *err);

#endif
