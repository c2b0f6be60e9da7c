/* prescan.c: the wire pre-scan (see prescan.h).
 *
 * One pass, front to back, with an explicit stack of the messages we are inside
 * (at most PRESCAN_MAX_DEPTH + 1 frames on the C stack, never recursion), so time is
 * linear in the input and stack use is fixed whatever the file holds. Every rule is
 * read from protobuf-c's descriptors: which fields exist, their labels (a singular
 * message field may occur once), their types (which wire type each accepts, which
 * ones are C strings), their nested message descriptors.
 *
 * The memory estimate mirrors protobuf_c_message_unpack (1.4): per message its
 * struct, the ScannedMember slabs it allocates past 16 fields, one array per
 * repeated field, the unknown-field array and copies; per string len + 1 bytes; per
 * non-empty bytes field len bytes. Each request is rounded up as the arena rounds,
 * so the total is an upper bound of what the arena will be charged.
 *
 * The field path of an error is rebuilt only when there is an error: the stack
 * remembers where each open message starts, and the index of a repeated element is
 * found by counting the earlier occurrences in its parent (bytes already checked).
 */
#include "core/grow.h"
#include "loader/prescan.h"

#include "core/strbuf.h"
#include "onnx-ml.pb-c.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUND 16 /* the arena's alignment (core/arena.c) */

/* protobuf-c's ScannedMember is private; this is its upper bound on the size
 * (BOUND_SIZEOF_SCANNED_MEMBER_LOG2 in protobuf-c.c), 32 bytes on LP64. */
#define SCANNED_MEMBER_BYTES 32u
/* protobuf-c keeps the first 16 members on its stack, then allocates slabs of 32,
 * 64, ... members, at most MAX_SCANNED_MEMBER_SLAB of them: past that it fails with
 * "too many fields". */
#define FIRST_SLAB_LOG2 4u
#define MAX_SLAB (sizeof(unsigned) * 8 - 1 - 5 - FIRST_SLAB_LOG2)
#define MAX_MEMBERS ((((uint64_t)1 << (MAX_SLAB + 1)) - 1) << FIRST_SLAB_LOG2)

/* Field indices tracked per message (a bit each). ONNX's largest message,
 * AttributeProto, has 18 fields. */
#define MAX_FIELDS 64

#define FIELD_NUMBER_MAX 536870911u /* 2^29 - 1 */

enum { WT_VARINT = 0, WT_64BIT = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_32BIT = 5 };

/* Field numbers below FAST_FIELDS are looked up in a table per message type (ONNX's
 * numbers are small), which also holds what the scan needs to know of each field,
 * worked out once from its descriptor rather than at every occurrence: protobuf-c's
  * binary search, a call per field, and the switches over a field's type and label
  * were most of the scan. At most FAST_TYPES types get a table (ONNX-ML has 22 to 30; the
 * tables live on the stack, 330 bytes each); a message of any other type, and a
 * bigger number, works the same out at each occurrence. */
#define FAST_FIELDS 32
#define FAST_TYPES 40

enum { K_SCALAR, K_STRING, K_BYTES, K_MESSAGE };
#define NO_FIELD 0xff  /* field_info.index of a number the type does not have */
#define NO_TABLE (-1) /* field_info.nested before it is looked up */

/* What the scan needs of one field of a message type. */
typedef struct field_info {
	uint8_t index;  /* into the descriptor's fields (< MAX_FIELDS), or NO_FIELD */
	uint8_t wire;   /* the wire type of one value, not packed */
	uint8_t kind;   /* K_* */
	uint8_t elt;    /* a repeated field's array element size; 0: not repeated */
	bool packable;  /* repeated scalars: a length-delimited payload is a packed run */
	int8_t nested;  /* a message field's type's table in scan.tables, or NO_TABLE */
} field_info;

typedef struct field_table {
	const ProtobufCMessageDescriptor *desc;
	/* No field of the type is a message or repeated (an external-data entry, a
	 * dimension): scan_leaf may read one whole without opening a frame. */
	bool leaf;
	field_info fields[FAST_FIELDS]; /* by field number */
	/* By a one-byte key (a field number below 16 and a wire type): the number, when
	 * the type has that field and the wire type is the one of its values, not
	 * packed; else 0. One load decides whether a field takes the quick way. */
	uint8_t quick[0x80];
} field_table;

typedef struct frame {
	const ProtobufCMessageDescriptor *desc;
	field_table *fast; /* NULL: every field is searched for */
	const ProtobufCFieldDescriptor *via; /* the parent's field holding it; NULL for the top */
	size_t key_at;                       /* offset of that field's key in the parent */
	size_t start, end;                   /* the message's content */
	uint64_t members;                    /* field occurrences: protobuf-c's ScannedMembers */
	uint64_t unknown;                    /* occurrences of fields the schema does not know */
	uint64_t singular_seen;              /* singular message fields met, by field index */
	uint64_t repeated_seen;              /* repeated fields met, by field index */
	uint64_t deferred;                   /* message fields only framed, by field index */
} frame;

typedef struct scan {
	const uint8_t *data;
	size_t size;
	const char *name;
	osh_error *err;
	int top; /* index of the innermost open message */
	int ntables;
	size_t field_key_at; /* offset of the key of the field being read */
	prescan_stats st;
	/* prescan_outline: the main graph's message, whose nodes and initializers are
	 * framed but not read (their fields' indices in `defer`). */
	const ProtobufCFieldDescriptor *graph_field;
	uint64_t defer;
	size_t graph_key, graph_start, graph_end;
	uint64_t deferred;
	unsigned init_index;           /* GraphProto.initializer's field index */
	prescan_spans *spans[2];       /* nodes, initializers: NULL once not recorded */
	size_t spans_max;              /* elements recorded at most */
	/* Last, and never cleared as a whole (start): 22 KB, written frame by frame
	 * (push) and table by table (table_for) as they come into use. A small model
	 * uses a few frames and a dozen tables, and clearing all of them would cost more
	 * than reading it. */
	frame stack[PRESCAN_MAX_DEPTH + 1];
	field_table tables[FAST_TYPES];
} scan;

static uint64_t round_up(uint64_t n) { return n ? (n + ROUND - 1) / ROUND * ROUND : ROUND; }

enum { VARINT_CUT = 0, VARINT_OVERFLOW = -1, VARINT_TOO_LONG = -2 };

/* Reads a varint of at most max_len bytes at p (before end). Returns its length, or
 * VARINT_CUT when it runs past end, VARINT_TOO_LONG past max_len bytes,
 * VARINT_OVERFLOW past 64 bits. */
static int read_varint(const uint8_t *p, const uint8_t *end, unsigned max_len, uint64_t *out)
{
	if (p < end && *p < 0x80) { /* most keys and lengths */
		*out = *p;
		return 1;
	}
	uint64_t v = 0;
	for (unsigned i = 0; i < max_len; i++) {
		if (p + i >= end)
			return VARINT_CUT;
		uint8_t b = p[i];
		if (i == 9 && b > 1)
			return VARINT_OVERFLOW; /* the tenth byte holds bit 63 only */
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*out = v;
			return (int)i + 1;
		}
	}
	return VARINT_TOO_LONG;
}

static const char *varint_problem(int r)
{
	return r == VARINT_CUT ? "is cut off" : r == VARINT_OVERFLOW ? "overflows 64 bits" : "is too long";
}

static const char *wire_name(unsigned wt)
{
	static const char *const names[] = {"varint", "64-bit", "length-delimited", "start-group",
					    "end-group", "32-bit", "6 (invalid)", "7 (invalid)"};
	return names[wt & 7];
}

static const char *type_name(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
		return "int32";
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		return "int64";
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		return "uint32";
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		return "uint64";
	case PROTOBUF_C_TYPE_FLOAT:
		return "float";
	case PROTOBUF_C_TYPE_DOUBLE:
		return "double";
	case PROTOBUF_C_TYPE_BOOL:
		return "bool";
	case PROTOBUF_C_TYPE_ENUM:
		return "enum";
	case PROTOBUF_C_TYPE_STRING:
		return "string";
	case PROTOBUF_C_TYPE_BYTES:
		return "bytes";
	case PROTOBUF_C_TYPE_MESSAGE:
		return "message";
	}
	return "?";
}

/* The wire type a non-packed value of type t has. */
static unsigned wire_of(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return WT_32BIT;
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return WT_64BIT;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_BYTES:
	case PROTOBUF_C_TYPE_MESSAGE:
		return WT_LEN;
	default:
		return WT_VARINT;
	}
}

/* sizeof_elt_in_repeated_array() of protobuf-c.c. */
static size_t element_size(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
	case PROTOBUF_C_TYPE_ENUM:
		return 4;
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(void *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	}
	return 8;
}

/* Skips one field's payload whose key ended at p; the bytes were checked before.
 * Returns the position after it. */
static const uint8_t *skip_payload(const uint8_t *p, const uint8_t *end, unsigned wt)
{
	uint64_t v = 0;
	int n;
	switch (wt) {
	case WT_VARINT:
		n = read_varint(p, end, 10, &v);
		return p + (n > 0 ? n : 1);
	case WT_64BIT:
		return p + 8;
	case WT_32BIT:
		return p + 4;
	default:
		n = read_varint(p, end, 5, &v);
		return p + (n > 0 ? n : 1) + v;
	}
}

/* How many occurrences of field `id` precede offset `upto` in the message content
 * [start, upto): the index of the element whose key is at `upto`. */
static uint64_t index_in_parent(const scan *s, size_t start, size_t upto, uint32_t id)
{
	const uint8_t *p = s->data + start, *end = s->data + upto;
	uint64_t count = 0, key;
	while (p < end) {
		int n = read_varint(p, end, 5, &key);
		if (n <= 0)
			break;
		p += n;
		count += (uint32_t)(key >> 3) == id;
		p = skip_payload(p, end, (unsigned)(key & 7));
	}
	return count;
}

/* "graph.node[12].attribute[0]" for the open messages, plus `field` (the field being
 * read, or NULL). Deep paths keep their first and last components. */
static void format_path(const scan *s, const ProtobufCFieldDescriptor *field, char *buf, size_t cap)
{
	enum { HEAD = 6, TAIL = 6 };
	strbuf sb = strbuf_on(buf, cap);
	int levels = s->top + (field != NULL); /* components, the top message has none */
	for (int i = 1; i <= levels; i++) {
		if (levels > HEAD + TAIL && i == HEAD + 1)
			strbuf_printf(&sb, ".<%d more>", levels - HEAD - TAIL);
		if (levels > HEAD + TAIL && i > HEAD && i <= levels - TAIL)
			continue;
		const ProtobufCFieldDescriptor *f = i <= s->top ? s->stack[i].via : field;
		strbuf_printf(&sb, "%s%s", strbuf_written(&sb) ? "." : "", f->name);
		/* An element's index: for strings, bytes and messages (a packed run holds
		 * many scalars, so their occurrences are not elements). */
		if (f->label == PROTOBUF_C_LABEL_REPEATED && wire_of(f->type) == WT_LEN) {
			const frame *parent = &s->stack[i - 1];
			size_t key_at = i <= s->top ? s->stack[i].key_at : s->field_key_at;
			strbuf_printf(&sb, "[%llu]", (unsigned long long)index_in_parent(s, parent->start, key_at, f->id));
		}
	}
	if (!strbuf_written(&sb))
		strbuf_printf(&sb, "%s", s->stack[0].desc->short_name);
}

/* Reports a problem at byte offset `at`; `field` is the field being read or NULL. */
static osh_status vreport(scan *s, osh_status st, const char *kind, size_t at,
			  const ProtobufCFieldDescriptor *field, const char *fmt, va_list ap)
{
	if (!s->err)
		return st;
	char what[400], path[600];
	vsnprintf(what, sizeof what, fmt, ap);
	format_path(s, field, path, sizeof path);
	s->err->status = st;
	int w = snprintf(s->err->message, sizeof s->err->message, "%s: not an ONNX model: %s%s at byte offset %zu (%s)",
			 s->name, kind, what, at, path);
	if (w >= (int)sizeof s->err->message) /* cut short: still one line, still closed */
		memcpy(s->err->message + sizeof s->err->message - 5, "...)", 5);
	return st;
}

/* Bytes that are not protobuf (as protobuf-c would read it): OSH_ERR_DECODE. */
static osh_status corrupt(scan *s, size_t at, const ProtobufCFieldDescriptor *field, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	osh_status st = vreport(s, OSH_ERR_DECODE, "the protobuf data is truncated or corrupt: ", at, field, fmt, ap);
	va_end(ap);
	return st;
}

/* Valid protobuf that onnxshape refuses to hand to protobuf-c. */
static osh_status refuse(scan *s, osh_status st, size_t at, const ProtobufCFieldDescriptor *field,
			 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	st = vreport(s, st, "", at, field, fmt, ap);
	va_end(ap);
	return st;
}

/* Adds n to the estimate. No saturation needed: every charge is bounded by a small
 * multiple of the bytes it stands for (a packed varint byte becomes at most 8, a
 * message of at least 2 bytes at most its struct, under 1 KB, and 64 bytes of
 * scratch per member), so even 2^40 bytes of input stay far below 2^64. */
static inline void charge(scan *s, uint64_t n) { s->st.unpack_bytes += n; }

/* The message on top of the stack is complete: what unpacking it allocates besides
 * its fields' own copies (counted as they were met). */
static void close_message(scan *s)
{
	const frame *f = &s->stack[s->top];
	charge(s, round_up(f->desc->sizeof_message));
	if (f->desc->n_fields > 128) /* a bitmap of required fields, past its stack copy */
		charge(s, round_up((f->desc->n_fields + 7) / 8));
	uint64_t capacity = 1u << FIRST_SLAB_LOG2;
	for (unsigned slab = 1; capacity < f->members; slab++) {
		uint64_t n = (uint64_t)1 << (slab + FIRST_SLAB_LOG2);
		charge(s, round_up(n * SCANNED_MEMBER_BYTES));
		capacity += n;
	}
	if (f->unknown)
		charge(s, round_up(f->unknown * sizeof(ProtobufCMessageUnknownField)));
}

/* Checks a packed run of scalars of fd's type in [p, end) and counts them. */
static osh_status scan_packed(scan *s, const ProtobufCFieldDescriptor *fd, const uint8_t *p, const uint8_t *end,
			      uint64_t *count)
{
	size_t len = (size_t)(end - p);
	switch (wire_of(fd->type)) {
	case WT_32BIT:
		if (len % 4)
			return corrupt(s, (size_t)(p - s->data), fd,
				    "a packed %s field holds %zu bytes, not a multiple of 4", type_name(fd->type), len);
		*count = len / 4;
		return OSH_OK;
	case WT_64BIT:
		if (len % 8)
			return corrupt(s, (size_t)(p - s->data), fd,
				    "a packed %s field holds %zu bytes, not a multiple of 8", type_name(fd->type), len);
		*count = len / 8;
		return OSH_OK;
	default:
		break;
	}
	uint64_t n = 0, v;
	while (p < end) {
		if (fd->type == PROTOBUF_C_TYPE_BOOL && *p > 1) /* protobuf-c takes one byte per bool */
			return corrupt(s, (size_t)(p - s->data), fd,
				    "a packed bool is not 0 or 1");
		int k = read_varint(p, end, 10, &v);
		if (k <= 0)
			return corrupt(s, (size_t)(p - s->data), fd, "a packed varint %s",
				    varint_problem(k));
		p += k;
		n++;
	}
	*count = n;
	return OSH_OK;
}

/* What the scan needs of field fd (NULL: a number d does not have) of type d. */
static field_info info_of(const ProtobufCMessageDescriptor *d, const ProtobufCFieldDescriptor *fd)
{
	if (!fd)
		return (field_info){.index = NO_FIELD, .nested = NO_TABLE};
	bool repeated = fd->label == PROTOBUF_C_LABEL_REPEATED;
	unsigned wire = wire_of(fd->type);
	uint8_t kind = fd->type == PROTOBUF_C_TYPE_STRING    ? K_STRING
		       : fd->type == PROTOBUF_C_TYPE_BYTES   ? K_BYTES
		       : fd->type == PROTOBUF_C_TYPE_MESSAGE ? K_MESSAGE
							     : K_SCALAR;
	return (field_info){
		.index = (uint8_t)(fd - d->fields), /* < MAX_FIELDS: push and prescan_message check */
		.wire = (uint8_t)wire,
		.kind = kind,
		.elt = repeated ? (uint8_t)element_size(fd->type) : 0,
		.packable = repeated && wire != WT_LEN,
		.nested = NO_TABLE,
	};
}

/* d's field table, made on first use; -1 when there is no room for another. */
static int table_for(scan *s, const ProtobufCMessageDescriptor *d)
{
	for (int i = 0; i < s->ntables; i++)
		if (s->tables[i].desc == d)
			return i;
	if (s->ntables == FAST_TYPES)
		return -1;
	field_table *t = &s->tables[s->ntables];
	t->desc = d;
	t->leaf = d->n_fields <= MAX_FIELDS;
	for (unsigned i = 0; i < d->n_fields; i++)
		t->leaf &= d->fields[i].type != PROTOBUF_C_TYPE_MESSAGE && d->fields[i].label != PROTOBUF_C_LABEL_REPEATED;
	/* From the descriptor's fields, not number by number: a table is made per type
	 * and file, and asking for each of 32 numbers (a binary search each) and then
	 * deciding 128 keys one by one was a large part of loading a small model. */
	const field_info none = info_of(d, NULL);
	for (unsigned n = 0; n < FAST_FIELDS; n++)
		t->fields[n] = none;
	memset(t->quick, 0, sizeof t->quick);
	for (unsigned i = 0; i < d->n_fields; i++) {
		unsigned n = d->fields[i].id;
		if (n >= FAST_FIELDS)
			continue;
		field_info *fi = &t->fields[n];
		*fi = info_of(d, &d->fields[i]);
		if (n < 0x10)
			t->quick[n << 3 | fi->wire] = (uint8_t)n;
	}
	return s->ntables++;
}

/* Opens the message field fd whose content is [start, end); fi is what the parent's
 * table says of fd, where the nested type's table is remembered. */
static osh_status push(scan *s, const ProtobufCFieldDescriptor *fd, field_info *fi, size_t key_at, size_t start,
		       size_t end)
{
	if (s->top == PRESCAN_MAX_DEPTH)
		return refuse(s, OSH_ERR_LIMIT, key_at, fd, "messages are nested more than %d levels deep",
			    PRESCAN_MAX_DEPTH);
	/* The nested type's table, once there is one, stands for the type: it was
	 * checked when the table was made (no load through fd's descriptor, a cache
	 * miss at every message). */
	int t = fi->nested;
	const ProtobufCMessageDescriptor *d = t >= 0 ? s->tables[t].desc : fd->descriptor;
	if (t < 0) {
		if (d->n_fields > MAX_FIELDS)
			return refuse(s, OSH_ERR_LIMIT, key_at, fd,
				    "message type %s has %u fields, more than the pre-scan tracks", d->name, d->n_fields);
		if ((t = table_for(s, d)) >= 0)
			fi->nested = (int8_t)t;
	}
	/* Field by field: a compound literal was zeroed with `rep stos` first, whose
	 * start-up was most of this function's time (a message every 27 bytes of an
	 * external-data model: its location, offset and length entries). */
	frame *f = &s->stack[++s->top];
	f->desc = d;
	f->fast = t >= 0 ? &s->tables[t] : NULL;
	f->via = fd;
	f->key_at = key_at;
	f->start = start;
	f->end = end;
	f->members = f->unknown = f->singular_seen = f->repeated_seen = 0;
	f->deferred = 0;
	if (fd == s->graph_field && s->top == 1) {
		f->deferred = s->defer;
		s->graph_key = key_at, s->graph_start = start, s->graph_end = end;
	}
	s->st.messages++;
	if ((uint32_t)s->top > s->st.max_depth)
		s->st.max_depth = (uint32_t)s->top;
	return OSH_OK;
}

/* What accepted fields add to the counts, kept apart so that scan_fields can keep
 * them in registers (prescan_stats takes them in add_counts). */
typedef struct counts {
	uint64_t charged, copied, strings, repeated;
} counts;

/* What a string or bytes payload of len bytes costs protobuf-c: its copy. */
static inline void count_payload(const field_info *fi, uint64_t len, counts *c)
{
	if (fi->kind == K_STRING) { /* round_up(len + 1), without its case for 0 */
		c->charged += (len + ROUND) / ROUND * ROUND;
		c->copied += len;
		c->strings++;
	} else if (fi->kind == K_BYTES) {
		if (len)
			c->charged += round_up(len);
		c->copied += len;
	}
}

/* Counts one accepted occurrence of field fi of the message f: `count` elements (a
 * packed run), a payload of len bytes; a singular message field is marked met. */
static inline void count_field(frame *f, const field_info *fi, uint64_t count, uint64_t len, counts *c)
{
	if (fi->elt) {
		if (!(f->repeated_seen >> fi->index & 1)) {
			/* The array's rounding, once per repeated field present. */
			f->repeated_seen |= (uint64_t)1 << fi->index;
			c->charged += ROUND;
		}
		c->repeated += count;
		c->charged += count * fi->elt;
	}
	if (fi->kind == K_MESSAGE && !fi->elt)
		f->singular_seen |= (uint64_t)1 << fi->index;
	count_payload(fi, len, c);
}

/* The end of the payload of a field whose one-byte key is `key`, from q (past the
 * key) on, and in *body where it starts (past a length); NULL when it is not well
 * formed within end (scan_field says how). */
static inline __attribute__((always_inline)) const uint8_t *quick_payload(unsigned key, const uint8_t *q,
									  const uint8_t *end, const uint8_t **body)
{
	uint64_t v;
	int n;
	*body = q;
	switch (key & 7) {
	case WT_VARINT:
		return (n = read_varint(q, end, 10, &v)) > 0 ? q + n : NULL;
	case WT_64BIT:
		return end - q >= 8 ? q + 8 : NULL;
	case WT_32BIT:
		return end - q >= 4 ? q + 4 : NULL;
	default:
		if ((n = read_varint(q, end, 5, &v)) <= 0 || v > (uint64_t)(end - q - n))
			return NULL;
		*body = q + n;
		return *body + v;
	}
}

/* A message of a leaf type (t->leaf) in [p, end), read here rather than pushed,
 * and counted into *c as scan_fields and close_message would count it. An
 * external-data model has three such entries per initializer: opening a frame for
 * each was most of the pre-scan's time per message. False, with *c as it was, when
 * the message needs more than the quick way (a field the quick table does not take
 * or not well formed, a NUL in a string, more fields than protobuf-c's first scratch
 * slab holds): the caller then pushes it and reads it the usual way, which also says
 * what is wrong. */
static __attribute__((noinline)) bool scan_leaf(const field_table *t, const uint8_t *p, const uint8_t *end, counts *c)
{
	counts k = *c;
	unsigned members = 0;
	while (p < end) {
		unsigned key = *p, number = key < 0x80 ? t->quick[key] : 0;
		if (!number || ++members > (1u << FIRST_SLAB_LOG2))
			return false;
		const field_info *fi = &t->fields[number];
		const uint8_t *body, *q = quick_payload(key, p + 1, end, &body);
		if (!q)
			return false;
		if (fi->kind == K_STRING && memchr(body, 0, (size_t)(q - body)))
			return false;
		count_payload(fi, (uint64_t)(q - body), &k);
		p = q;
	}
	k.charged += round_up(t->desc->sizeof_message); /* close_message: no slab, nothing unknown */
	*c = k;
	return true;
}

static void add_counts(scan *s, const counts *c)
{
	s->st.unpack_bytes += c->charged;
	s->st.copied_bytes += c->copied;
	s->st.strings += c->strings;
	s->st.repeated += c->repeated;
}

/* A node or initializer of the main graph, framed only (prescan_outline): counted,
 * and recorded for unpack_split, the pre-scan thread and a writer that copies them
 * ahead (input_layout). Elements of fewer than PRESCAN_SPANS_MIN_ELEMENT bytes on
 * average are not recorded (their spans would take more than 12/32 of the file):
 * unpack_split walks them itself. */
static void defer_element(scan *s, unsigned index, size_t key_at, size_t body, size_t end)
{
	s->deferred++;
	int kind = index == s->init_index;
	if (s->spans[kind] && (s->deferred > s->spans_max || !prescan_spans_add(s->spans[kind], key_at, body, end)))
		s->spans[0] = s->spans[1] = NULL; /* unpack_split walks the graph itself */
}

/* Reads one field of the innermost message, at *pos (before the message's end). */
static osh_status scan_field(scan *s, size_t *pos)
{
	frame *f = &s->stack[s->top];
	const uint8_t *p = s->data + *pos, *end = s->data + f->end;
	size_t key_at = *pos;
	uint64_t key, v;
	s->field_key_at = key_at;
	/* protobuf-c reads keys of at most 5 bytes. */
	int n = read_varint(p, end, 5, &key);
	if (n <= 0)
		return corrupt(s, key_at, NULL, "a field key %s", varint_problem(n));
	p += n;
	unsigned wt = (unsigned)(key & 7);
	uint64_t number = key >> 3;
	if (number == 0 || number > FIELD_NUMBER_MAX)
		return corrupt(s, key_at, NULL, "field number %llu is out of range",
			    (unsigned long long)number);
	if (wt == WT_SGROUP || wt == WT_EGROUP || wt > WT_32BIT)
		return corrupt(s, key_at, NULL, "field %llu has wire type %s, which protobuf-c does not read",
			    (unsigned long long)number, wire_name(wt));
	if (++f->members > MAX_MEMBERS)
		return refuse(s, OSH_ERR_LIMIT, key_at, NULL, "a message holds more than %llu fields",
			    (unsigned long long)MAX_MEMBERS);

	/* The payload's extent, whatever the field. */
	size_t payload = (size_t)(p - s->data), payload_end;
	size_t prefix = 0;
	switch (wt) {
	case WT_VARINT:
		n = read_varint(p, end, 10, &v);
		if (n <= 0)
			return corrupt(s, payload, NULL, "a varint %s", varint_problem(n));
		payload_end = payload + (size_t)n;
		break;
	case WT_64BIT:
	case WT_32BIT: {
		size_t w = wt == WT_64BIT ? 8 : 4;
		if ((size_t)(end - p) < w)
			return corrupt(s, payload, NULL, "a %s value is cut off", wire_name(wt));
		payload_end = payload + w;
		break;
	}
	default:
		/* protobuf-c reads at most 5 bytes of length (a 32-bit value). */
		n = read_varint(p, end, 5, &v);
		if (n <= 0)
			return corrupt(s, payload, NULL, "a length %s", varint_problem(n));
		if (v > (uint64_t)(end - p - n))
			return corrupt(s, payload, NULL,
				    "a length of %llu bytes runs past the end of its message (%zu bytes left)",
				    (unsigned long long)v, (size_t)(end - p - n));
		prefix = (size_t)n;
		payload_end = payload + prefix + (size_t)v;
		break;
	}
	*pos = payload_end;

	field_info slow, *fi;
	if (number < FAST_FIELDS && f->fast) {
		fi = &f->fast->fields[number];
	} else {
		slow = info_of(f->desc, protobuf_c_message_descriptor_get_field(f->desc, (unsigned)number));
		fi = &slow;
	}
	if (fi->index == NO_FIELD) {
		/* Kept by protobuf-c as an unknown field: a copy of the payload. */
		f->unknown++;
		charge(s, round_up(payload_end - payload));
		s->st.copied_bytes += payload_end - payload;
		return OSH_OK;
	}
	const ProtobufCFieldDescriptor *fd = &f->desc->fields[fi->index];
	bool packed = fi->packable && wt == WT_LEN;
	if (wt != fi->wire && !packed)
		return corrupt(s, key_at, fd, "field '%s' (%s) has wire type %s", fd->name,
			    type_name(fd->type), wire_name(wt));
	const uint8_t *body = s->data + payload + prefix;
	size_t len = payload_end - payload - prefix;
	uint64_t count = 1;
	if (packed) {
		osh_status st = scan_packed(s, fd, body, body + len, &count);
		if (st != OSH_OK)
			return st;
	}
	/* A C string ends at its first NUL: the rest would be lost on the way back. */
	const uint8_t *nul = fi->kind == K_STRING ? memchr(body, 0, len) : NULL;
	if (nul)
		return refuse(s, OSH_ERR_DECODE, (size_t)(nul - s->data), fd, "string field '%s' holds a NUL byte",
			    fd->name);
	/* protobuf-c merges a repeated singular message into the earlier one, copying
	 * what it holds each time: quadratic in the occurrences. */
	if (fi->kind == K_MESSAGE && !fi->elt && (f->singular_seen >> fi->index & 1))
		return refuse(s, OSH_ERR_DECODE, key_at, fd,
			    "singular message field '%s' occurs more than once (protobuf would merge the "
			    "occurrences; onnxshape refuses them)",
			    fd->name);
	counts c = {0};
	count_field(f, fi, count, len, &c);
	add_counts(s, &c);
	if (fi->kind != K_MESSAGE)
		return OSH_OK;
	if (f->deferred >> fi->index & 1) { /* framed only: prescan_graph_elements reads it */
		defer_element(s, fi->index, key_at, payload + prefix, payload_end);
		return OSH_OK;
	}
	*pos = payload + prefix; /* read its fields next */
	return push(s, fd, fi, key_at, payload + prefix, payload_end);
}

/* Reads the innermost message's fields from *pos on, until it ends or a nested
 * message opens: the common fields here, each in a few instructions (a one-byte key
 * of a field the type's table knows, with the wire type it expects, a well-formed
 * payload), anything else in scan_field, which reads it again from its key and says
  * what is wrong. Same checks, same counts: this only keeps the walk in registers,
  * where scan_field costs many instructions a field. */
static osh_status scan_fields(scan *s, size_t *pos)
{
	frame *f = &s->stack[s->top];
	field_table *fast = f->fast;
	const uint8_t *const data = s->data, *const end = data + f->end;
	const uint8_t *p = data + *pos;
	counts c = {0};
	uint64_t members = f->members;
	osh_status st = OSH_OK;
	while (p < end) {
		unsigned key = *p, number = fast && key < 0x80 ? fast->quick[key] : 0;
		if (!number || members >= MAX_MEMBERS)
			goto slow;
		field_info *fi = &fast->fields[number];
		const uint8_t *body, *q = quick_payload(key, p + 1, end, &body);
		if (!q)
			goto slow;
		if (fi->kind == K_STRING && memchr(body, 0, (size_t)(q - body)))
			goto slow;
		if (fi->kind == K_MESSAGE && !fi->elt && (f->singular_seen >> fi->index & 1))
			goto slow;
		/* The field is well formed: count it as scan_field would. */
		members++;
		count_field(f, fi, 1, (uint64_t)(q - body), &c);
		if (fi->kind == K_MESSAGE) {
			if (f->deferred >> fi->index & 1) { /* framed only, as in scan_field */
				defer_element(s, fi->index, (size_t)(p - data), (size_t)(body - data), (size_t)(q - data));
			} else if (fi->nested >= 0 && s->tables[fi->nested].leaf && s->top < PRESCAN_MAX_DEPTH &&
				   scan_leaf(&s->tables[fi->nested], body, q, &c)) {
				/* Read whole, one level down, as push and close_message count it. */
				s->st.messages++;
				if ((uint32_t)s->top + 1 > s->st.max_depth)
					s->st.max_depth = (uint32_t)s->top + 1;
			} else {
				s->field_key_at = (size_t)(p - data);
				*pos = (size_t)(body - data); /* read its fields next */
				f->members = members;
				st = push(s, &f->desc->fields[fi->index], fi, s->field_key_at, *pos, (size_t)(q - data));
				goto done;
			}
		}
		p = q;
		continue;
	slow:
		f->members = members;
		*pos = (size_t)(p - data);
		st = scan_field(s, pos);
		goto done;
	}
	f->members = members;
	*pos = (size_t)(p - data);
done:
	add_counts(s, &c);
	return st;
}

/* Reads fields until the message open at stack index `base` (the innermost one)
 * is complete, closing each message as it ends. */
static osh_status run(scan *s, size_t pos, int base)
{
	for (;;) {
		while (pos == s->stack[s->top].end) {
			close_message(s);
			if (s->top == base)
				return OSH_OK;
			s->top--;
		}
		osh_status st = scan_fields(s, &pos);
		if (st != OSH_OK)
			return st;
	}
}

/* Clears s but for its frames and tables (see scan), for `size` bytes at data. */
static void scan_init(scan *s, const uint8_t *data, size_t size, const char *name, osh_error *err)
{
	memset(s, 0, offsetof(scan, stack));
	s->data = data, s->size = size, s->name = name, s->err = err;
}

/* Starts a scan of `size` bytes as a message of type desc: the top frame. */
static osh_status start(scan *s, const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t size,
			const char *name, osh_error *err)
{
	scan_init(s, data, size, name, err);
	s->stack[0] = (frame){.desc = desc, .start = 0, .end = size};
	s->st.messages = 1;
	if (desc->n_fields > MAX_FIELDS)
		return refuse(s, OSH_ERR_LIMIT, 0, NULL, "message type %s has %u fields, more than the pre-scan tracks",
			    desc->name, desc->n_fields);
	int t = table_for(s, desc);
	s->stack[0].fast = t >= 0 ? &s->tables[t] : NULL;
	return OSH_OK;
}

osh_status prescan_message(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t size,
			   const char *name, prescan_stats *stats, osh_error *err)
{
	/* About 22 KB: fine on any thread's stack. */
	scan s;
	osh_status st = start(&s, desc, data, size, name, err);
	if (st == OSH_OK && (st = run(&s, 0, 0)) == OSH_OK)
		*stats = s.st;
	return st;
}

/* The index of field `number` in d's fields. */
static unsigned field_index(const ProtobufCMessageDescriptor *d, unsigned number)
{
	return (unsigned)(protobuf_c_message_descriptor_get_field(d, number) - d->fields);
}

osh_status prescan_outline(const uint8_t *data, size_t size, const char *name, prescan_outline_result *out,
			   osh_error *err)
{
	scan s;
	osh_status st = start(&s, &onnx__model_proto__descriptor, data, size, name, err);
	if (st != OSH_OK)
		return st;
	s.graph_field = protobuf_c_message_descriptor_get_field(&onnx__model_proto__descriptor, 7);
	const ProtobufCMessageDescriptor *g = &onnx__graph_proto__descriptor;
	s.init_index = field_index(g, PRESCAN_INIT_FIELD);
	s.defer = (uint64_t)1 << field_index(g, PRESCAN_NODE_FIELD) | (uint64_t)1 << s.init_index;
	prescan_spans nodes = {0}, inits = {0};
	s.spans[0] = &nodes, s.spans[1] = &inits;
	s.spans_max = size / PRESCAN_SPANS_MIN_ELEMENT;
	if ((st = run(&s, 0, 0)) != OSH_OK) {
		prescan_spans_free(&nodes), prescan_spans_free(&inits);
		return st;
	}
	*out = (prescan_outline_result){.stats = s.st, .graph_key = s.graph_key, .graph_start = s.graph_start,
					.graph_end = s.graph_end, .deferred = s.deferred};
	if (s.spans[0]) {
		out->nodes = nodes, out->inits = inits, out->spans = true;
	} else {
		prescan_spans_free(&nodes), prescan_spans_free(&inits);
	}
	return OSH_OK;
}

/* Where prescan_graph_elements is in one kind of the graph's elements: at the i-th of
 * the outline's record of them, or, without one, at byte pos of the graph. */
typedef struct element_walk {
	const uint8_t *data;
	size_t graph_end;
	const prescan_spans *rec;
	unsigned number; /* the kind's field number */
	size_t i, pos;
} element_walk;

/* The next element: its key, where its payload starts and ends. From the record, or
 * found by hopping over the graph's fields, which the outline framed already. */
static bool walk_next(element_walk *w, size_t *key_at, size_t *start, size_t *end)
{
	if (w->rec) {
		if (w->i >= w->rec->n)
			return false;
		*key_at = w->rec->start[w->i], *start = w->rec->off[w->i];
		*end = *start + w->rec->len[w->i];
		w->i++;
		return true;
	}
	const uint8_t *data = w->data, *gend = data + w->graph_end;
	while (w->pos < w->graph_end) {
		uint64_t key = 0, len = 0;
		const uint8_t *p = data + w->pos;
		int n = read_varint(p, gend, 5, &key);
		p += n > 0 ? n : 1;
		if ((key & 7) != WT_LEN) {
			w->pos = (size_t)(skip_payload(p, gend, (unsigned)(key & 7)) - data);
			continue;
		}
		n = read_varint(p, gend, 5, &len);
		p += n > 0 ? n : 1;
		*key_at = w->pos, *start = (size_t)(p - data), *end = *start + (size_t)len;
		w->pos = *end;
		if (key >> 3 == w->number)
			return true;
	}
	return false;
}

osh_status prescan_graph_elements(const uint8_t *data, size_t size, const prescan_outline_result *o,
				  prescan_stats *stats, prescan_progress_fn progress, void *ctx)
{
	/* The stack as the whole scan has it at a node: the model, its graph, the node,
	 * opened by push as there. No error is formatted here (the caller scans again
	 * with prescan_message for that), so the outer frames only set the depth. */
	const ProtobufCMessageDescriptor *g = &onnx__graph_proto__descriptor;
	scan s;
	scan_init(&s, data, size, "", NULL);
	s.stack[0] = (frame){.desc = &onnx__model_proto__descriptor, .end = size};
	s.stack[1] = (frame){.desc = g, .start = o->graph_start, .end = o->graph_end};
	static const unsigned kinds[2] = {PRESCAN_INIT_FIELD, PRESCAN_NODE_FIELD};
	for (int k = 0; k < 2; k++) {
		const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(g, kinds[k]);
		field_info fi = info_of(g, fd); /* push remembers the element type's table here */
		uint64_t done = 0;
		/* Without a record of this kind's elements, hopping over the others reads a
		 * header on every page of the weights, pages the loader may have given back
		 * already. */
		element_walk w = {.data = data, .graph_end = o->graph_end, .number = kinds[k], .pos = o->graph_start,
				  .rec = !o->spans ? NULL : kinds[k] == PRESCAN_NODE_FIELD ? &o->nodes : &o->inits};
		size_t key_at, start, end;
		while (walk_next(&w, &key_at, &start, &end)) {
			s.top = 1;
			osh_status st = push(&s, fd, &fi, key_at, start, end);
			if (st == OSH_OK)
				st = run(&s, start, 2);
			if (st != OSH_OK)
				return st;
			if (++done % PRESCAN_PROGRESS_STEP == 0 && progress && !progress(ctx, k, done))
				return OSH_ERR_DECODE;
		}
		if (progress && !progress(ctx, k, done))
			return OSH_ERR_DECODE;
	}
	*stats = s.st;
	return OSH_OK;
}

bool prescan_spans_grow(prescan_spans *l)
{
	size_t cap = grow_capacity(l->cap, l->cap + 1, 1024, SIZE_MAX, sizeof *l->start);
	uint32_t *a[3] = {l->start, l->off, l->len};
	bool ok = cap > l->cap;
	for (int i = 0; i < 3 && ok; i++) {
		uint32_t *grown = realloc(a[i], cap * sizeof *grown);
		if (grown)
			a[i] = grown;
		ok = grown != NULL;
	}
	l->start = a[0], l->off = a[1], l->len = a[2];
	if (ok)
		l->cap = cap;
	return ok;
}

void prescan_spans_free(prescan_spans *l)
{
	free(l->start);
	if (!l->given)
		free(l->off), free(l->len);
	*l = (prescan_spans){0};
}

void prescan_outline_free(prescan_outline_result *o)
{
	prescan_spans_free(&o->nodes);
	prescan_spans_free(&o->inits);
	o->spans = false;
}

void prescan_stats_add(prescan_stats *to, const prescan_stats *from)
{
	to->messages += from->messages;
	to->repeated += from->repeated;
	to->strings += from->strings;
	to->copied_bytes += from->copied_bytes;
	to->unpack_bytes += from->unpack_bytes;
	if (from->max_depth > to->max_depth)
		to->max_depth = from->max_depth;
}
