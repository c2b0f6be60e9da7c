/* tuning.h: the speed devices' thresholds, in one place, the switch that turns the
 * devices off, and the one other switch the environment holds (the IR checker).
 *
 * Every figure below changes how fast or in how much memory the library works, never
 * what it finds or writes: a model gets the same diagnostics and the same output
 * bytes whatever they are. Limits that change what is accepted (the 2 GiB message,
 * the expansion a file may claim, the memory budget) are not tuning and stay where
 * they are decided. Why each value is what it is: the comment at its use, and the
 * measurements in bench/README.md.
 *
 * The devices sit behind two seams (docs/ARCHITECTURE.md, "The seams"): the input
 * (io/input.h, chosen in loader/load.c: mapping and the page releaser in io/; the
 * pre-scan's second thread, the split unpack, the second thread of the name
 * look-ups in loader/; the arena's prefault in core/) and the output (io/output.h:
 * flush-behind, kernel copies and writeback in io/output_fast.c, the copy ahead in
 * io/copy_ahead.c; the streamed packer, emit/pack_stream.c). Each has a plain path
 * beside it, which the tests also run.
 */
#ifndef OSH_CORE_TUNING_H
#define OSH_CORE_TUNING_H

#include "onnxshape.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- The switch ----------------------------------------------------------------- */

/* ONNXSHAPE_PLAIN_IO=1 in the environment: a model is loaded and written the plain
 * way (the file read with pread into memory of its own, pre-scanned and then unpacked
 * whole by protobuf-c on the loading thread, packed whole by protobuf-c and written
 * with write, every pass on the caller's thread). =0: the fast way. Unset, or any
 * other value: the build's default, fast unless built with -DONNXSHAPE_PLAIN_IO=ON. */
#define PLAIN_IO_ENV "ONNXSHAPE_PLAIN_IO"

/* Whether a load about to start takes the plain path (PLAIN_IO_ENV, read now). The
 * model remembers the answer (osh_model.plain_io): its passes and its writes follow
 * it, whatever the environment says later. */
bool plain_io_chosen(void);
/* What a load told `io` (osh_load_options.io) takes: OSH_IO_DEFAULT asks
 * plain_io_chosen. */
bool plain_io_for(osh_io io);

/* ONNXSHAPE_VERIFY_IR in the environment, read now: "0" runs no IR checker between
 * the pipeline's stages, any other non-empty value runs it; unset or empty, the
 * build's default (on in a Debug build and with -DOSH_VERIFY_IR). This file and
 * plain_io_chosen are the only places the library reads the environment. */
bool verify_ir_chosen(void);

/* ---- Input: io/ and loader/ ----------------------------------------------------- */

/* A file this big is pre-scanned by a second thread while the index reads it: a
 * thread's start against the scan's time off the loading thread. */
#define SPLIT_SCAN_MIN ((size_t)1 << 20)
/* While that scan runs, the loader's arena may grow to this many bytes per byte of
 * file (plus the floor) before it waits for the verdict: overlap for real models
 * against the memory a file built to exhaust it costs before it is refused. */
#define SCAN_AHEAD_PER_BYTE 4
#define SCAN_AHEAD_FLOOR ((uint64_t)16 << 20)
/* A private copy of the input this big asks for huge pages: fewer page faults against
 * rounding a small file up to 2 MB. */
#define INPUT_HUGE_MIN ((size_t)4 << 20)
/* An input this big has its pages given back as the index reads past them: memory
 * against the calls that drop them and the faults when the writer reads them again. */
#define INPUT_DROP_MIN ((size_t)1 << 20)
/* The pages are given back this many bytes at a time: fewer calls against a higher
 * peak while the arena fills. */
#define RELEASE_STEP ((size_t)1 << 20)
/* An input this big has its pages dropped by a thread of its own: a thread's start
 * against the time the kernel takes to drop them. */
#define RELEASER_MIN ((size_t)16 << 20)
/* The most that thread may lag behind before the loading thread drops pages itself:
 * bounded memory when the thread gets no core, against the loading thread doing the
 * work. */
#define RELEASE_LAG ((size_t)8 << 20)
/* The arena a node or initializer is expected to take (one chunk asked for at once,
 * faulted in ahead): an estimate too high costs address space, too low faults. */
#define ARENA_BYTES_PER_ELEMENT 384
/* A graph this big has its nodes' input names looked up by a second thread too: a
 * thread's start against the share of the loading thread's work the look-ups are. */
#define RESOLVE_THREAD_MIN 16384
/* The stretch of nodes each of the two threads takes at a time: the two meeting
 * evenly against the lock taken per stretch. */
#define RESOLVE_CHUNK 2048
/* How many inputs ahead a name's slot in the value map is fetched: overlapping cache
 * misses against a ring to keep. */
#define LOOKUP_AHEAD 16
/* How many nodes ahead the slot of a node's first output is fetched: the same trade. */
#define OUTPUT_AHEAD 4
/* The pre-scan's thread reports its progress every this many elements: how soon the
 * index may read one, against the lock taken per report. */
#define PRESCAN_PROGRESS_STEP 64
/* Elements of fewer bytes on average are not recorded by the pre-scan: their spans
 * would take much of the file's size in memory, against walking them again. */
#define PRESCAN_SPANS_MIN_ELEMENT 32

/* ---- Memory: core/arena.c, core/prefault.c ---------------------------------------- */

/* The arena's chunks grow from CHUNK_MIN to CHUNK_MAX bytes: a small model's memory
 * against the number of mallocs a big one makes. */
#define CHUNK_MIN (64 * 1024)
#define CHUNK_MAX (64 * 1024 * 1024)
/* A chunk this big is faulted in by the prefault thread as it fills: its start
 * against the faults of the loading thread. */
#define PREFAULT_CHUNK ((size_t)16 << 20)
/* An expected chunk (arena_expect) this big takes huge pages: fewer faults against
 * rounding up and a peak raised by tables filled at once. */
#define EXPECT_HUGE ((size_t)32 << 20)
/* Expected memory below this is not asked for at once: the arena fills faster than a
 * thread starts and keeps ahead. */
#define EXPECT_MIN ((size_t)4 << 20)
/* A table this big cut from a fresh mapped chunk is faulted in by the thread rather
 * than zeroed by its owner: the thread's queue against the owner's faults. */
#define ZERO_AHEAD_MIN ((size_t)64 << 10)
/* Ranges the prefault thread may have queued: a dropped request (faulted in by its
 * owner) against the queue's size. */
#define PREFAULT_QUEUE 64
/* It works a huge page at a time: how long a stop waits, against calls. */
#define PREFAULT_STEP ((size_t)2 << 20)
/* How far ahead of the owner a followed chunk is made resident (a 32nd of the chunk,
 * within these): staying ahead against memory resident before its use. */
#define PREFAULT_AHEAD_MIN ((size_t)256 << 10)
#define PREFAULT_AHEAD_MAX ((size_t)4 << 20)
/* How long the thread sleeps between two looks at the owner: staying ahead against
 * a core kept awake. */
#define PREFAULT_NAP_NS (200 * 1000)
/* A step in huge pages slower than this (CPU time) counts against them (prefault.h):
 * huge pages where the host hands them out cheaply, small ones where it does not. */
#define PREFAULT_SLOW_HUGE_NS ((uint64_t)3 * 1000 * 1000)

/* ---- Output: io/ and emit/ ---------------------------------------------------- */

/* The output buffer starts at OUT_BUF_FIRST bytes and becomes OUT_BUF after
 * OUT_GROW_AFTER bytes went through it: a small output's fresh pages against a big
 * one's system calls. */
#define OUT_BUF_FIRST (64u << 10)
#define OUT_GROW_AFTER ((uint64_t)1 << 20)
#define OUT_BUF (256u << 10)
/* A durable output starts its writeback every this many bytes: the disk writing while
 * we pack, against the calls. */
#define WRITEBACK_STEP ((uint64_t)8 << 20)
/* Full big buffers are written by a thread of their own from this many on: a thread's
 * start against the write calls it takes off the packing thread. */
#define BEHIND_AFTER 8
/* Bytes of the input shorter than this are written from memory, not copied by the
 * kernel: a system call either way. */
#define OUT_COPY_MIN ((size_t)64 << 10)
/* A graph whose nodes and initializers take this many bytes is copied into the output
 * while it loads (write-ahead): a thread and a temporary file against the copy's
 * time off the write. */
#define WRITE_AHEAD_MIN ((uint64_t)1 << 20)
/* The copy ahead checks for cancellation between steps this long: how long a cancel
 * waits, against calls. */
#define WRITE_AHEAD_STEP ((size_t)16 << 20)
/* How much inference is guessed to grow the graph per node or initializer: only which
 * power of 128 the graph's length reaches depends on it (a wrong guess costs the copy). */
#define WRITE_AHEAD_GROWTH 48
/* After an edit, the initializers are copied ahead again to their new place when the
 * stretch holds this many bytes for each edited node or initializer sized to place
 * it: the sizing, on the editing thread, against the copy it takes off the write. */
#define WRITE_AHEAD_PER_MESSAGE ((uint64_t)1 << 10)
/* More than this of the model's fields beside the graph, and nothing is copied ahead:
 * reading them to place the graph against what the copy saves. */
#define WRITE_AHEAD_HEADER_MAX ((uint64_t)1 << 20)
/* Elements up to this size are packed into scratch memory, bigger ones stream: one
 * write against memory. */
#define PACK_SCRATCH_MAX ((size_t)1 << 20)
/* The input's pages the packer read are given back in steps this big: fewer calls
 * against memory held. */
#define PACK_DROP_STEP ((size_t)4 << 20)
/* A run of elements copied from the input as they are ends at this many bytes: fewer
 * copies against the input's pages held until it is written. */
#define PACK_RUN_MAX ((size_t)1 << 20)

/* ---- Passes: passes/pipeline.c ---------------------------------------------------- */

/* A model this big (nodes) has its deferred lint run by a thread beside the write: a
 * thread's start against the lint's time off the write. */
#define LINT_THREAD_MIN 4096

#endif
