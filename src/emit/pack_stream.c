/* pack_stream.c: packs a ModelProto into an output file in one pass (see
 * pack_stream.h).
 *
 * protobuf_c_message_pack_to_buffer writes every sub-message's length before its
 * bytes by computing its packed size, recursively, at every level: a dim inside a
 * value_info's type is sized once per enclosing message, six times, so packing costs
 * more than loading and inferring. protobuf_c_message_pack does not
 * (it packs a sub-message, then moves it behind its length), but it needs a buffer
 * the size of the model.
 *
 * So the two outer levels are written here: the graph's nodes, initializers, inputs,
 * outputs and value_info entries one element at a time, each sized once and packed by
 * protobuf_c_message_pack into a small scratch buffer (or, when big, an initializer
 * with its weights, through pack_to_buffer straight into the file); everything else
 * of the graph and the model is packed by protobuf-c with those fields emptied, and
 * the element fields are put back where protobuf-c would have written them: among
 * the known fields in field-number order, before unknown fields (which protobuf-c
 * writes last). The bytes are protobuf-c's own, in protobuf-c's order.
 *
 * The value_info, input and output entries that inference wrote share their types
 * (emit/annotate.c: one TypeProto for all the values of the same type): each type is
 * packed once, and every entry pointing at it gets a copy of those bytes, merged
 * after its name the same way (protobuf-c would pack every entry's type anew, the
 * same bytes once per value).
 *
 * Nodes and initializers a split load kept as bytes (m->src.wire_nodes, wire_inits:
 * loader/unpack_split.c) are written as those bytes, and so are those of an edited
 * list but for the elements an edit made or changed (wire_list.msg), packed from
 * their messages: unchanged nodes need no message, and their fields stay as the
 * file had them (order, unknown fields). Everything is sized before the first byte is
 * written, so a model over protobuf's 2 GiB is refused with nothing written.
 */
#define _DEFAULT_SOURCE /* madvise */
#include "emit/pack_stream.h"
#include "core/grow.h"
#include "emit/pack_node.h"
#include "core/tuning.h"
#include "loader/wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GRAPH_FIELD 7 /* ModelProto.graph */

/* The GraphProto fields written element by element: node, initializer, input,
 * output, value_info. */
static const uint32_t graph_fields[] = {1, 5, 11, 12, 13};
#define NGRAPH_FIELDS (sizeof graph_fields / sizeof graph_fields[0])

typedef struct packer {
	out_file *out;
	uint8_t *scratch;
	size_t scratch_cap;
	bool fast_nodes; /* plain nodes are packed by pack_node (pack_node_schema) */
	int err; /* ENOMEM */
} packer;

typedef struct sink {
	ProtobufCBuffer base;
	out_file *out;
} sink;

static void sink_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	out_write(((sink *)b)->out, data, len);
}

/* Writes v to the output as a varint (wire_put_varint: 10 bytes at most). */
static void put_varint(packer *p, uint64_t v)
{
	uint8_t b[10];
	size_t n = wire_put_varint(b, v);
	out_write(p->out, b, n);
}

static void put_key(packer *p, uint32_t field) { put_varint(p, (uint64_t)field << 3 | 2); }

/* The repeated message field `number` of msg: its count and array. */
static size_t repeated(const ProtobufCMessage *msg, uint32_t number, ProtobufCMessage ***arr)
{
	const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(msg->descriptor, number);
	*arr = *(ProtobufCMessage ***)((char *)msg + fd->offset);
	return *(size_t *)((char *)msg + fd->quantifier_offset);
}

static void set_repeated(ProtobufCMessage *msg, uint32_t number, size_t n, ProtobufCMessage **arr)
{
	const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(msg->descriptor, number);
	*(ProtobufCMessage ***)((char *)msg + fd->offset) = arr;
	*(size_t *)((char *)msg + fd->quantifier_offset) = n;
}

/* msg packed by protobuf-c (malloc'd into *out), with fields[] emptied meanwhile. */
static size_t pack_rest(ProtobufCMessage *msg, const uint32_t *fields, size_t nfields, uint8_t **out)
{
	size_t saved_n[NGRAPH_FIELDS];
	ProtobufCMessage **saved_arr[NGRAPH_FIELDS];
	for (size_t i = 0; i < nfields; i++) {
		saved_n[i] = repeated(msg, fields[i], &saved_arr[i]);
		set_repeated(msg, fields[i], 0, NULL);
	}
	size_t n = protobuf_c_message_get_packed_size(msg);
	*out = malloc(n ? n : 1);
	if (*out)
		protobuf_c_message_pack(msg, *out);
	for (size_t i = 0; i < nfields; i++)
		set_repeated(msg, fields[i], saved_n[i], saved_arr[i]);
	return n;
}

/* The extent of the field at *pos in buf (packed by protobuf-c: well formed). */
static uint32_t next_field(const uint8_t *buf, size_t *pos)
{
	uint64_t key = 0, v = 0;
	for (int s = 0; s < 64; s += 7) {
		uint8_t b = buf[(*pos)++];
		key |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			break;
	}
	switch (key & 7) {
	case 0:
		while (buf[(*pos)++] & 0x80)
			;
		break;
	case 1:
		*pos += 8;
		break;
	case 5:
		*pos += 4;
		break;
	default: /* 2: protobuf-c writes no groups */
		for (int s = 0; s < 64; s += 7) {
			uint8_t b = buf[(*pos)++];
			v |= (uint64_t)(b & 0x7f) << s;
			if (!(b & 0x80))
				break;
		}
		*pos += (size_t)v;
		break;
	}
	return (uint32_t)(key >> 3);
}

typedef void (*emit_fn)(packer *p, uint32_t field, void *ctx);

/* Whether protobuf-c packs field `streamed` of a message of type desc before its
 * field f: known fields go in field-number order, unknown ones after them all. */
static bool packed_before(const ProtobufCMessageDescriptor *desc, uint32_t streamed, uint32_t f)
{
	return streamed < f || !protobuf_c_message_descriptor_get_field(desc, f);
}

/* Writes rest's fields with the streamed ones (numbers in fields[], ascending) put
 * back in protobuf-c's order; emit writes one streamed field's entries. */
static void merge(packer *p, const ProtobufCMessageDescriptor *desc, const uint8_t *rest, size_t len,
		  const uint32_t *fields, size_t nfields, emit_fn emit, void *ctx)
{
	size_t next = 0, pos = 0;
	while (pos < len) {
		size_t start = pos;
		uint32_t f = next_field(rest, &pos);
		while (next < nfields && packed_before(desc, fields[next], f))
			emit(p, fields[next++], ctx);
		out_write(p->out, rest + start, pos - start);
	}
	while (next < nfields)
		emit(p, fields[next++], ctx);
}

static bool reserve_scratch(packer *p, size_t size)
{
	uint8_t *b = grow_heap(p->scratch, &p->scratch_cap, size, 4096, 1);
	if (b)
		p->scratch = b;
	return b != NULL;
}

/* One element of a streamed field: key, length, bytes. Elements up to
 * PACK_SCRATCH_MAX bytes are packed into scratch memory; bigger ones stream. */
static void put_element(packer *p, uint32_t field, ProtobufCMessage *e, size_t size)
{
	put_key(p, field);
	put_varint(p, size);
	bool fast = p->fast_nodes && pack_node_plain(e);
	if (size > PACK_SCRATCH_MAX && !fast) {
		sink s = {.base = {.append = sink_append}, .out = p->out};
		protobuf_c_message_pack_to_buffer(e, &s.base);
		return;
	}
	if (!reserve_scratch(p, size)) {
		p->err = 1;
		return;
	}
	if (fast)
		pack_node((const Onnx__NodeProto *)e, p->scratch);
	else
		protobuf_c_message_pack(e, p->scratch);
	out_write(p->out, p->scratch, size);
}

/* Packed types, by the address of their TypeProto: open addressing over `cap`
 * slots (a power of two), the bytes one after another in `bytes`. */
typedef struct memo_slot {
	const ProtobufCMessage *key; /* NULL: free */
	size_t off, len;
} memo_slot;

typedef struct type_memo {
	memo_slot *slot;
	size_t cap, n;
	uint8_t *bytes;
	size_t used, bytes_cap;
} type_memo;

typedef struct graph_plan {
	ProtobufCMessage *g;
	const wire_list *lazy;       /* the nodes as bytes, or NULL */
	const node *nodes;            /* and their IR nodes (pack_source) */
	size_t nnodes;
	const wire_list *lazy_inits; /* the initializers as bytes, or NULL */
	const vi_list *lazy_vi;       /* value_info entries after the messages, or NULL */
	const uint8_t *map;           /* the input file's bytes (pack_source.map), or NULL */
	size_t map_size;
	bool droppable;               /* map maps the file (pack_source.map_is_file) */
	int fd;                       /* the input file (pack_source.fd) */
	size_t dropped;               /* map's pages before this were given back */
	bool fast_nodes;              /* packer.fast_nodes */
	size_t node_messages;         /* lazy elements with a message (element_message) */
	uint8_t *rest;
	size_t rest_len;
	/* Packed size of each element; for a wire list, of its messages only (NULL
	 * without any). 32 bits: a graph packs to at most PACK_MAX, and one past it is
	 * refused before a byte is written (a value_info entry per value: in 64 bits,
	 * twice the fresh memory to fault in). */
	uint32_t *sizes[NGRAPH_FIELDS];
	size_t total;                 /* the graph's packed size */
	type_memo types;
} graph_plan;

#define VALUE_INFO_FIELD 13 /* GraphProto.value_info */
#define VALUE_INFO_NAME 1 /* ValueInfoProto.name */
#define VALUE_INFO_TYPE 2 /* ValueInfoProto.type */

/* The slot holding t, or the free one where it goes. */
static size_t memo_find(const type_memo *m, const ProtobufCMessage *t)
{
	size_t j = ((uintptr_t)t >> 4) & (m->cap - 1);
	while (m->slot[j].key && m->slot[j].key != t)
		j = (j + 1) & (m->cap - 1);
	return j;
}

static bool memo_grow(type_memo *m)
{
	size_t cap = grow_capacity(m->cap, m->cap + 1, 256, SIZE_MAX, sizeof(memo_slot));
	memo_slot *slot = cap > m->cap ? calloc(cap, sizeof *slot) : NULL;
	if (!slot)
		return false;
	type_memo g = *m;
	g.slot = slot, g.cap = cap;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slot[i].key)
			slot[memo_find(&g, m->slot[i].key)] = m->slot[i];
	free(m->slot);
	*m = g;
	return true;
}

/* The slot of type t, packed on first sight; SIZE_MAX when memory ran out. */
static size_t memo_type(type_memo *m, const ProtobufCMessage *t)
{
	size_t j = m->cap ? memo_find(m, t) : 0;
	if (m->cap && m->slot[j].key)
		return j;
	if ((m->n + 1) * 4 > m->cap * 3) {
		if (!memo_grow(m))
			return SIZE_MAX;
		j = memo_find(m, t);
	}
	size_t n = protobuf_c_message_get_packed_size(t);
	if (!m->bytes || n > m->bytes_cap - m->used) { /* an empty type packs to 0 bytes */
		uint8_t *b = n <= SIZE_MAX - m->used ? grow_heap(m->bytes, &m->bytes_cap, m->used + n, 4096, 1) : NULL;
		if (!b)
			return SIZE_MAX;
		m->bytes = b;
	}
	protobuf_c_message_pack(t, m->bytes + m->used);
	m->slot[j] = (memo_slot){t, m->used, n};
	m->used += n, m->n++;
	return j;
}

static void memo_free(type_memo *m)
{
	free(m->slot), free(m->bytes);
	*m = (type_memo){0};
}

/* A ValueInfoProto's type, or NULL (then it is packed whole by protobuf-c). */
static const ProtobufCMessage *value_type(uint32_t field, const ProtobufCMessage *e)
{
	return field >= 11 ? (const ProtobufCMessage *)((const Onnx__ValueInfoProto *)e)->type : NULL;
}

/* A ValueInfoProto without its type, packed into out by protobuf-c (sized only,
 * when out is NULL): its size. */
static size_t pack_without_type(ProtobufCMessage *e, uint8_t *out)
{
	Onnx__ValueInfoProto *vi = (Onnx__ValueInfoProto *)e;
	Onnx__TypeProto *saved = vi->type;
	vi->type = NULL;
	size_t n = out ? protobuf_c_message_pack(e, out) : protobuf_c_message_get_packed_size(e);
	vi->type = saved;
	return n;
}

/* The bytes of the type field holding `len` bytes of TypeProto. */
static size_t type_field_size(size_t len)
{
	return wire_head_len(VALUE_INFO_TYPE, len) + len;
}

/* A ValueInfoProto that is a name and a type and nothing else (what annotate adds,
 * a value at a time): protobuf-c would write the name's field, then the type's
 * (fields in number order), which is what put_value_info writes itself. A schema
 * whose ValueInfoProto has fields beyond name, type and doc_string goes the general
 * way. */
static bool plain_value_info(const ProtobufCMessage *e)
{
	const Onnx__ValueInfoProto *vi = (const Onnx__ValueInfoProto *)e;
	return e->descriptor->n_fields == 3 && !vi->doc_string && !e->n_unknown_fields;
}

/* The bytes of a name field holding name (none for no name). */
static size_t name_field_size(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	return name ? wire_head_len(VALUE_INFO_NAME, n) + n : 0;
}

/* The packed size of a ValueInfoProto with a type: protobuf-c's for the rest of it,
 * plus the memoized type's field. SIZE_MAX when memory ran out. */
static size_t value_info_size(type_memo *m, ProtobufCMessage *e, const ProtobufCMessage *type)
{
	size_t slot = memo_type(m, type);
	if (slot == SIZE_MAX)
		return SIZE_MAX;
	size_t rest = plain_value_info(e) ? name_field_size(((const Onnx__ValueInfoProto *)e)->name)
					  : pack_without_type(e, NULL);
	return rest + type_field_size(m->slot[slot].len);
}

/* The packed size of a ValueInfoProto of this name and type alone. SIZE_MAX when
 * memory ran out. */
static size_t plain_size(type_memo *m, const char *name, const ProtobufCMessage *type)
{
	size_t slot = memo_type(m, type);
	return slot == SIZE_MAX ? SIZE_MAX : name_field_size(name) + type_field_size(m->slot[slot].len);
}

typedef struct memo_ref {
	const type_memo *m;
	size_t slot;
} memo_ref;

static void emit_value_type(packer *p, uint32_t field, void *ctx)
{
	const memo_ref *r = ctx;
	const memo_slot *t = &r->m->slot[r->slot];
	put_key(p, field);
	put_varint(p, t->len);
	out_write(p->out, r->m->bytes + t->off, t->len);
}

/* The input's bytes written make their pages ours when they are read from the
 * mapping (weights the kernel could not copy, or packed by protobuf-c), and so do the
 * elements' headers a run is found by (same_bytes_run) when the kernel copies the
 * rest: they are given back (a page of a private file mapping we never wrote comes
 * back from the page cache if read again), or writing a model would cost the whole
 * file in memory again. Everything before the weights of t goes, in steps of
 * PACK_DROP_STEP: dropping each tensor's own pages is undone by the kernel mapping a few
 * pages around the next read (fault-around), so only what lies behind stays out.
 * `final` drops up to the end of t's weights. Initializers are written in the order
 * the split load read them, which is file order. */

/* Gives back the input's pages below offset upto (rounded down to a page) once
 * PACK_DROP_STEP of them have gathered, or all of them when `final`. */
static void drop_upto(graph_plan *gp, size_t upto, bool final)
{
	/* Kept: see osh_model.src.map; a private copy holds the model's only bytes. */
	if (gp->map_size < INPUT_DROP_MIN || !gp->droppable)
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (!final)
		upto = upto / page * page;
	if (upto <= gp->dropped || (!final && upto - gp->dropped < PACK_DROP_STEP))
		return;
	madvise((void *)(gp->map + gp->dropped), upto - gp->dropped, MADV_DONTNEED);
	gp->dropped = (upto + page - 1) / page * page;
}

static void drop_behind(graph_plan *gp, const uint8_t *data, size_t len, bool final)
{
	if (!len || data < gp->map || data + len > gp->map + gp->map_size)
		return;
	size_t start = (size_t)(data - gp->map);
	drop_upto(gp, final ? start + len : start, final);
}

/* The bytes a graph field's elements still are (nodes or initializers a split load
 * kept), or NULL when they are messages. */
static const wire_list *wire_of(const graph_plan *gp, uint32_t field)
{
	return field == 1 ? gp->lazy : field == 5 ? gp->lazy_inits : NULL;
}

/* Lazy node k's message when it has one (unpacked by the index, or an edit's),
 * else NULL. An edited list holds every message its nodes have (wire_list.msg). */
static inline ProtobufCMessage *node_message(const graph_plan *gp, size_t k)
{
	if (gp->lazy->msg)
		return gp->lazy->msg[k];
	if (!gp->nodes || k >= gp->nnodes || !gp->nodes[k].proto)
		return NULL;
	return &((Onnx__NodeProto *)gp->nodes[k].proto)->base;
}

/* Element k of the wire list of field `field` as a message to pack (a node's, or an
 * initializer an edit made), or NULL: its bytes are copied. */
static inline ProtobufCMessage *element_message(const graph_plan *gp, uint32_t field, size_t k)
{
	if (field == 1)
		return node_message(gp, k);
	return gp->lazy_inits->msg ? gp->lazy_inits->msg[k] : NULL;
}

static void drop_weights(graph_plan *gp, const Onnx__TensorProto *t, bool final)
{
	if (t->has_raw_data)
		drop_behind(gp, t->raw_data.data, t->raw_data.len, final);
}

/* A plain ValueInfoProto of up to this many bytes is put together on the stack. */
#define PLAIN_MAX 480

/* A ValueInfoProto of a name and the type in memo slot `slot` alone, `size` bytes
 * (plain_size), as protobuf-c packs it: the name's field, then the type's; put
 * together and written at once (a model has one per value), on the stack up to
 * PLAIN_MAX bytes, else in the scratch buffer. */
static void put_plain(packer *p, const type_memo *m, uint32_t field, const char *name, size_t slot, size_t size)
{
	const memo_slot *t = &m->slot[slot];
	uint8_t stack[PLAIN_MAX + 20];
	uint8_t *b = size <= PLAIN_MAX ? stack : reserve_scratch(p, size + 20) ? p->scratch : NULL;
	if (!b) {
		p->err = 1;
		return;
	}
	size_t n = wire_put_varint(b, (uint64_t)field << 3 | 2);
	n += wire_put_varint(b + n, size);
	if (name) {
		size_t len = strlen(name);
		b[n++] = VALUE_INFO_NAME << 3 | 2;
		n += wire_put_varint(b + n, len);
		memcpy(b + n, name, len), n += len;
	}
	b[n++] = VALUE_INFO_TYPE << 3 | 2;
	n += wire_put_varint(b + n, t->len);
	memcpy(b + n, m->bytes + t->off, t->len), n += t->len;
	out_write(p->out, b, n);
}

/* A ValueInfoProto with its type from the memo, `size` bytes in all (value_info_size):
 * its other fields packed by protobuf-c into scratch, and the type's bytes merged in
 * among them. */
static void put_value_info(packer *p, type_memo *m, uint32_t field, ProtobufCMessage *e,
			   const ProtobufCMessage *type, size_t size)
{
	size_t slot = memo_type(m, type); /* found: sized by plan_graph */
	if (slot != SIZE_MAX && plain_value_info(e)) {
		put_plain(p, m, field, ((const Onnx__ValueInfoProto *)e)->name, slot, size);
		return;
	}
	size_t rest = slot == SIZE_MAX ? 0 : size - type_field_size(m->slot[slot].len);
	if (slot == SIZE_MAX || !reserve_scratch(p, rest)) {
		p->err = 1;
		return;
	}
	pack_without_type(e, p->scratch);
	put_key(p, field);
	put_varint(p, size);
	static const uint32_t type_field[] = {VALUE_INFO_TYPE};
	memo_ref ref = {m, slot};
	merge(p, e->descriptor, p->scratch, rest, type_field, 1, emit_value_type, &ref);
}

/* Whether the key_len bytes of key and then len as put_varint encodes it are at q. */
static bool head_is(const uint8_t *q, const uint8_t *key, size_t key_len, size_t len)
{
	if (q[0] != key[0] || (key_len > 1 && memcmp(q + 1, key + 1, key_len - 1) != 0))
		return false;
	const uint8_t *v = q + key_len;
	size_t rest = len, i = 0;
	for (; rest >= 0x80; rest >>= 7, i++)
		if (v[i] != (uint8_t)(rest | 0x80))
			return false;
	return v[i] == (uint8_t)rest;
}

/* The end of the run of elements from k on that lie in the input exactly as they
 * will in the output: each one's key and length encoded as put_key and put_varint
 * encode them, back to back, and no node among them to be packed from its message.
 * k itself when element k's encoding differs. The run's bytes start at *from. A run
 * ends once it holds PACK_RUN_MAX bytes: a copy by the kernel (out_copy) or a write
 * that skips the buffer, and the input's pages read for it are given back soon after
 * (drop_upto). */
static size_t same_bytes_run(const graph_plan *gp, const wire_list *w, uint32_t field, size_t k,
			     const uint8_t **from)
{
	size_t j = k, total = 0;
	const uint8_t *prev_end = NULL;
	uint8_t key[10];
	size_t key_len = wire_put_varint(key, (uint64_t)field << 3 | 2);
	for (; j < w->n && total < PACK_RUN_MAX; j++) {
		if ((field == 1 || w->msg) && element_message(gp, field, j))
			break;
		/* The element's key and length, just before its content (and right after
		 * the previous one's), as put_key and put_varint write them: byte for
		 * byte, without encoding them to compare (one element in ten thousand
		 * differs; every one is looked at). */
		size_t len = w->len[j], h = key_len + wire_varint_len(len);
		const uint8_t *q = w->bytes + w->off[j] - h;
		if (w->off[j] < h || (prev_end && q != prev_end))
			break;
		if (!w->shortest_heads && !head_is(q, key, key_len, len))
			break;
		if (j == k)
			*from = q;
		prev_end = q + h + len;
		total += h + len;
	}
	return j;
}

static bool in_map(const graph_plan *gp, const uint8_t *from, const uint8_t *to)
{
	return gp->map && from >= gp->map && to <= gp->map + gp->map_size;
}

/* Writes n bytes of the input. Those in the input file's mapping are copied by the
 * kernel from the file (out_copy), never read here, unless it cannot. */
static void put_input(packer *p, const graph_plan *gp, const uint8_t *data, size_t n)
{
	if (in_map(gp, data, data + n))
		out_copy(p->out, gp->fd, (uint64_t)(data - gp->map), data, n);
	else
		out_write(p->out, data, n);
}

/* Writes the elements of w, a tight list (wire_list.tight) in the input's mapping
 * with no node to be packed from its message, as the stretch of the input they are:
 * what same_bytes_run would find, element by element, without reading a byte of it
 * (on a 100k-node model, the walk read a header on every page of the weights). In
 * steps of PACK_RUN_MAX, each given back behind it, should the kernel not copy. False
 * when w is not such a list. */
static bool put_tight(packer *p, graph_plan *gp, const wire_list *w, uint32_t field)
{
	if (!w->tight || !w->n || w->msg || (field == 1 && gp->node_messages))
		return false;
	size_t head = wire_head_len(field, w->len[0]);
	if (w->off[0] < head)
		return false;
	const uint8_t *from = w->bytes + w->off[0] - head, *to = w->bytes + w->off[w->n - 1] + w->len[w->n - 1];
	if (!in_map(gp, from, to))
		return false;
	while (from < to && !p->err) {
		size_t n = (size_t)(to - from) < PACK_RUN_MAX ? (size_t)(to - from) : PACK_RUN_MAX;
		put_input(p, gp, from, n);
		from += n;
		drop_upto(gp, (size_t)(from - gp->map), from == to);
	}
	return true;
}

static void emit_graph_field(packer *p, uint32_t field, void *ctx)
{
	graph_plan *gp = ctx;
	size_t i = 0;
	while (graph_fields[i] != field)
		i++;
	const wire_list *w = wire_of(gp, field);
	if (w && put_tight(p, gp, w, field))
		return;
	if (w) {
		for (size_t k = 0; k < w->n && !p->err;) {
			ProtobufCMessage *msg = element_message(gp, field, k);
			if (msg) {
				put_element(p, field, msg, gp->sizes[i][k]);
				k++;
				continue;
			}
			/* Nodes the index did not unpack and initializers (never re-encoded):
			 * whole runs of them, copied from the input file when it is mapped. */
			const uint8_t *from = NULL;
			size_t end = same_bytes_run(gp, w, field, k, &from);
			if (end > k) {
				const uint8_t *to = w->bytes + w->off[end - 1] + w->len[end - 1];
				/* Copied by the kernel or not, the run's headers were read
				 * (same_bytes_run): their pages go back as well. */
				put_input(p, gp, from, (size_t)(to - from));
				if (in_map(gp, from, to))
					drop_upto(gp, (size_t)(to - gp->map), end == w->n);
				k = end;
				continue;
			}
			put_key(p, field);
			put_varint(p, w->len[k]);
			put_input(p, gp, w->bytes + w->off[k], w->len[k]);
			drop_behind(gp, w->bytes + w->off[k], w->len[k], k + 1 == w->n);
			k++;
		}
		return;
	}
	ProtobufCMessage **arr;
	size_t n = repeated(gp->g, field, &arr);
	for (size_t k = 0; k < n && !p->err; k++) {
		const ProtobufCMessage *type = value_type(field, arr[k]);
		if (type) {
			put_value_info(p, &gp->types, field, arr[k], type, gp->sizes[i][k]);
			continue;
		}
		put_element(p, field, arr[k], gp->sizes[i][k]);
		if (field == 5 && gp->map)
			drop_weights(gp, (const Onnx__TensorProto *)arr[k], k + 1 == n);
	}
	const vi_list *l = field == VALUE_INFO_FIELD ? gp->lazy_vi : NULL;
	for (size_t k = 0; l && k < l->n && !p->err; k++) {
		size_t slot = memo_type(&gp->types, &l->types[k]->base); /* found: sized by plan_graph */
		if (slot == SIZE_MAX)
			p->err = 1;
		else
			put_plain(p, &gp->types, field, l->names[k], slot, gp->sizes[i][n + k]);
	}
}

static void emit_model_field(packer *p, uint32_t field, void *ctx)
{
	graph_plan *gp = ctx;
	put_key(p, field);
	put_varint(p, gp->total);
	merge(p, gp->g->descriptor, gp->rest, gp->rest_len, graph_fields, NGRAPH_FIELDS, emit_graph_field, gp);
}

/* A list of bytes stands for a field only while the field holds no message
 * (loader/build_messages.c builds them all at once). */
static const wire_list *in_use(const wire_list *w, const ProtobufCMessage *g, uint32_t field)
{
	ProtobufCMessage **arr;
	return w && w->n && !repeated(g, field, &arr) ? w : NULL;
}

/* The packed size of an element's message (put_element packs it so). */
static size_t message_size(const graph_plan *gp, const ProtobufCMessage *msg)
{
	if (gp->fast_nodes && pack_node_plain(msg))
		return pack_node_size((const Onnx__NodeProto *)msg);
	return protobuf_c_message_get_packed_size(msg);
}

static bool plan_graph(graph_plan *gp, ProtobufCMessage *g, const pack_source *src, bool fast_nodes)
{
	static const pack_source none = {0};
	if (!src)
		src = &none;
	*gp = (graph_plan){.g = g, .lazy = in_use(src->lazy, g, 1), .lazy_inits = in_use(src->lazy_inits, g, 5),
			   .lazy_vi = src->lazy_vi && src->lazy_vi->n ? src->lazy_vi : NULL,
			   .map = src->map, .map_size = src->map_size, .fd = src->map ? src->fd : -1,
			   .droppable = src->map_is_file,
			   .nodes = src->nodes, .nnodes = src->nnodes, .fast_nodes = fast_nodes};
	gp->rest_len = pack_rest(g, graph_fields, NGRAPH_FIELDS, &gp->rest);
	if (!gp->rest)
		return false;
	gp->total = gp->rest_len;
	for (size_t i = 0; i < NGRAPH_FIELDS; i++) {
		ProtobufCMessage **arr;
		size_t n = repeated(g, graph_fields[i], &arr);
		const wire_list *wire = wire_of(gp, graph_fields[i]);
		if (wire)
			n = wire->n;
		const vi_list *l = graph_fields[i] == VALUE_INFO_FIELD ? gp->lazy_vi : NULL;
		size_t nl = l ? l->n : 0;
		/* Elements still in wire bytes have their length there: an array of sizes
		 * only once one of them is a message (a node a rewrite packs), so that
		 * `infer` of a 100k-node model does not fill a megabyte of fresh memory
		 * with lengths it already has. */
		if (!wire && !(gp->sizes[i] = malloc((n + nl ? n + nl : 1) * sizeof *gp->sizes[i])))
			return false;
		for (size_t k = 0; k < n; k++) {
			bool may = wire && (graph_fields[i] == 1 || wire->msg);
			ProtobufCMessage *msg = may ? element_message(gp, graph_fields[i], k) : NULL;
			gp->node_messages += msg && graph_fields[i] == 1;
			if (msg && !gp->sizes[i] && !(gp->sizes[i] = malloc(n * sizeof *gp->sizes[i])))
				return false;
			const ProtobufCMessage *type = wire ? NULL : value_type(graph_fields[i], arr[k]);
			size_t s = msg	  ? message_size(gp, msg)
				   : wire ? wire->len[k]
				   : type ? value_info_size(&gp->types, arr[k], type)
					  : message_size(gp, arr[k]);
			if (s == SIZE_MAX)
				return false;
			if (!wire || msg)
				gp->sizes[i][k] = s > PACK_MAX ? UINT32_MAX : (uint32_t)s; /* too big: refused */
			gp->total += wire_head_len(graph_fields[i], s) + s;
		}
		for (size_t k = 0; k < nl; k++) {
			size_t s = plain_size(&gp->types, l->names[k], &l->types[k]->base);
			if (s == SIZE_MAX)
				return false;
			gp->sizes[i][n + k] = s > PACK_MAX ? UINT32_MAX : (uint32_t)s;
			gp->total += wire_head_len(graph_fields[i], s) + s;
		}
	}
	return true;
}

static void free_plan(graph_plan *gp)
{
	memo_free(&gp->types);
	free(gp->rest);
	for (size_t i = 0; i < NGRAPH_FIELDS; i++)
		free(gp->sizes[i]);
}

int pack_stream_model(out_file *out, Onnx__ModelProto *model, const pack_source *src)
{
	packer p = {.out = out, .fast_nodes = pack_node_schema()};
	if (!model->graph) {
		if (protobuf_c_message_get_packed_size(&model->base) > PACK_MAX)
			return EFBIG;
		sink s = {.base = {.append = sink_append}, .out = out};
		protobuf_c_message_pack_to_buffer(&model->base, &s.base);
		return 0;
	}
	graph_plan gp;
	bool ok = plan_graph(&gp, &model->graph->base, src, p.fast_nodes);
	uint8_t *rest = NULL;
	size_t rest_len = 0;
	if (ok) {
		/* The model without its graph: the graph is an optional field, emptied by
		 * setting it NULL. */
		Onnx__GraphProto *g = model->graph;
		model->graph = NULL;
		rest_len = protobuf_c_message_get_packed_size(&model->base);
		rest = malloc(rest_len ? rest_len : 1);
		if (rest)
			protobuf_c_message_pack(&model->base, rest);
		model->graph = g;
		ok = rest != NULL;
	}
	if (ok && rest_len + wire_head_len(GRAPH_FIELD, gp.total) + gp.total > PACK_MAX) {
		free(rest);
		free_plan(&gp);
		return EFBIG;
	}
	if (ok) {
		static const uint32_t model_fields[] = {GRAPH_FIELD};
		merge(&p, model->base.descriptor, rest, rest_len, model_fields, 1, emit_model_field, &gp);
	}
	free(rest);
	free_plan(&gp);
	free(p.scratch);
	return ok && !p.err ? 0 : ENOMEM;
}

uint64_t pack_stream_graph_content_at(const Onnx__ModelProto *model, uint64_t graph_len)
{
	Onnx__ModelProto m = *model;
	m.graph = NULL;
	size_t len = protobuf_c_message_get_packed_size(&m.base), pos = 0;
	uint8_t *rest = malloc(len ? len : 1);
	if (!rest)
		return UINT64_MAX;
	protobuf_c_message_pack(&m.base, rest);
	/* As merge puts the graph back, and emit_model_field writes its key and length. */
	for (size_t start = 0; pos < len; start = pos)
		if (packed_before(m.base.descriptor, GRAPH_FIELD, next_field(rest, &pos))) {
			pos = start;
			break;
		}
	free(rest);
	return pos + wire_head_len(GRAPH_FIELD, graph_len);
}

pack_source pack_stream_source(const osh_model *m)
{
	return (pack_source){.lazy = &m->src.wire_nodes,
			     .nodes = m->main ? m->main->nodes : NULL,
			     .nnodes = m->main ? (size_t)m->main->nnodes : 0,
			     .lazy_inits = &m->src.wire_inits,
			     .lazy_vi = &m->pending.value_info,
			     .map = m->src.map,
			     .map_size = m->src.map_size,
			     .map_is_file = m->src.map_is_file,
			     .fd = m->src.fd};
}

/* Lazy node k's message as plan_graph will find it (node_message), or NULL: its
 * bytes are copied; before a re-index the IR node of an edited list's element k is
 * the one it was (wire_list.from). */
static ProtobufCMessage *node_message_now(const graph_plan *gp, size_t k)
{
	const wire_list *w = gp->lazy;
	if (w->msg)
		return w->msg[k];
	size_t i = w->from ? (w->from[k] < 0 ? SIZE_MAX : (size_t)w->from[k]) : k;
	if (gp->nodes && i < gp->nnodes && gp->nodes[i].proto)
		return &((Onnx__NodeProto *)gp->nodes[i].proto)->base;
	return NULL;
}

/* Whether the element k of w lies in the input after its key and length encoded as
 * put_key and put_varint encode them (same_bytes_run); *q: where that key is. */
static bool head_as_packed(const wire_list *w, size_t k, uint32_t field, const uint8_t **q)
{
	uint8_t key[10];
	size_t key_len = wire_put_varint(key, (uint64_t)field << 3 | 2), h = key_len + wire_varint_len(w->len[k]);
	if (w->off[k] < h)
		return false;
	*q = w->bytes + w->off[k] - h;
	return w->shortest_heads || head_is(*q, key, key_len, w->len[k]);
}

/* The longest run of initializers of w copied as they are (pack_stream_init_stretch),
 * [*k0, *k1), and its bytes; 0 when none. *nmsg: how many of w's elements are
 * messages. */
static uint64_t longest_run(const graph_plan *gp, const wire_list *w, size_t *k0, size_t *k1, size_t *nmsg)
{
	uint64_t best = 0, len = 0;
	size_t from = 0;
	const uint8_t *end = NULL; /* where the run's bytes end in the input */
	*k0 = *k1 = *nmsg = 0;
	for (size_t k = 0; k < w->n; k++) {
		const uint8_t *q;
		bool msg = w->msg && w->msg[k];
		*nmsg += msg;
		size_t h = wire_head_len(5, w->len[k]);
		if (msg || !head_as_packed(w, k, 5, &q) || !in_map(gp, q, q + h + w->len[k])) {
			end = NULL;
			continue;
		}
		if (q != end)
			from = k, len = 0;
		len += h + w->len[k];
		end = q + h + w->len[k];
		if (len > best)
			best = len, *k0 = from, *k1 = k + 1;
	}
	return best;
}

bool pack_stream_init_stretch(Onnx__ModelProto *model, const pack_source *src, uint64_t per_message,
			      pack_stretch *out)
{
	*out = (pack_stretch){0};
	if (!model->graph || !src)
		return false;
	ProtobufCMessage *g = &model->graph->base;
	graph_plan gp = {.g = g, .lazy = in_use(src->lazy, g, 1), .lazy_inits = in_use(src->lazy_inits, g, 5),
			 .map = src->map, .map_size = src->map_size, .nodes = src->nodes, .nnodes = src->nnodes};
	const wire_list *w = gp.lazy_inits;
	if (!w || !gp.map || src->fd < 0)
		return false; /* initializers packed from messages, or not copied from a file */
	size_t k0, k1, nmsg;
	uint64_t len = longest_run(&gp, w, &k0, &k1, &nmsg);
	ProtobufCMessage **arr;
	size_t n = gp.lazy ? gp.lazy->n : repeated(g, 1, &arr);
	for (size_t k = 0; k < n && len; k++)
		nmsg += !gp.lazy || node_message_now(&gp, k);
	if (!len || len / (nmsg ? nmsg : 1) < per_message)
		return false;
	uint64_t at = 0;
	for (size_t k = 0; k < n; k++) {
		ProtobufCMessage *msg = gp.lazy ? node_message_now(&gp, k) : arr[k];
		size_t s = msg ? protobuf_c_message_get_packed_size(msg) : gp.lazy->len[k];
		at += wire_head_len(1, s) + s;
	}
	/* The graph's other fields that merge puts before the initializers. */
	uint8_t *rest;
	size_t rest_len = pack_rest(g, graph_fields, NGRAPH_FIELDS, &rest);
	if (!rest)
		return false;
	for (size_t pos = 0, start = 0; pos < rest_len; start = pos) {
		if (packed_before(g->descriptor, 5, next_field(rest, &pos)))
			break;
		at += pos - start;
	}
	free(rest);
	for (size_t k = 0; k < w->n; k++) {
		ProtobufCMessage *msg = w->msg ? w->msg[k] : NULL;
		size_t s = msg ? protobuf_c_message_get_packed_size(msg) : w->len[k];
		if (k == k0)
			out->graph_off = at;
		at += wire_head_len(5, s) + s;
	}
	out->src_off = (uint64_t)(w->bytes + w->off[k0] - wire_head_len(5, w->len[k0]) - gp.map);
	out->len = len;
	out->upto = at;
	return true;
}
