/* SPDX-License-Identifier: MIT */
/*
 * The collector's objects and processes: each process's address-space
 * map over time, the objects its mappings hold, and what is known of the
 * process (command line, owner, jitdump).  Apart from collect.c so that
 * both the aggregation (collect.c) and the stack walk (stacks.c) look
 * addresses up here without calling each other; this file calls
 * neither.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util/array.h"
#include "common/util/buildid.h"
#include "collect_int.h"
#include "common/util/error.h"
#include "common/util/hash.h"

static bool same_rid(const struct collect_file_id *a,
		     const struct collect_file_id *b)
{
	return a->ino == b->ino && a->maj == b->maj && a->min == b->min;
}

/* What a file object is to its path here. */
enum obj_class {
	OBJ_HERE,	/* the file at its path */
	OBJ_FOREIGN,	/* another file, held open (fd) */
	OBJ_UNREAD,	/* unknown: never read by path */
};

static enum obj_class class_of(const struct object *o)
{
	return o->fd >= 0 ? OBJ_FOREIGN : o->unread ? OBJ_UNREAD : OBJ_HERE;
}

static uint32_t add_object(struct collector *c, uint32_t kind, uint32_t pid,
			   enum obj_class cls, const char *path,
			   const uint8_t *bid, size_t bidlen,
			   const struct collect_file_id *rid, uint64_t start,
			   uint64_t end, uint64_t pgoff);

uint32_t collect_add_object(struct collector *c, uint32_t kind, uint32_t pid,
			    bool foreign, const char *path, const uint8_t *bid,
			    size_t bidlen, const struct collect_file_id *rid,
			    uint64_t start, uint64_t end, uint64_t pgoff)
{
	return add_object(c, kind, pid, foreign ? OBJ_FOREIGN : OBJ_HERE,
			  path, bid, bidlen, rid, start, end, pgoff);
}

/* The object of (kind, pid, path, build-id, recorded identity), added if
 * new.  Objects of another class are other objects, unless the recorded
 * identities say they are the same file; the caller gives a new foreign
 * one its fd. */
/* Objects are indexed by kind, pid and path (c->object_index). */
static uint64_t object_hash(uint32_t kind, uint32_t pid, const char *path)
{
	uint32_t k[2] = { kind, pid };

	return hash_str(hash_mem(HASH_STR_SEED, k, sizeof(k)), path);
}

/* What an object of kind, pid and path must be to be the one a mapping
 * names (add_object) or a file already checked (collector_file_known). */
struct object_want {
	const struct collector *c;
	uint32_t kind, pid;
	const char *path;
	enum obj_class cls;
	const uint8_t *bid;
	size_t bidlen;
	const struct collect_file_id *rid;
	bool checked;		/* collector_file_known's question */
};

static int object_is(const void *ctx, size_t i)
{
	const struct object_want *w = ctx;
	const struct object *o = &w->c->objects[i];

	if (o->kind != w->kind || o->pid != w->pid || strcmp(o->path, w->path))
		return 0;
	/* An unchecked one is checked again: another process may still
	 * have the file mapped. */
	if (w->checked)
		return same_rid(&o->rid, w->rid) && !o->unread;
	/* Both recorded: the same file, or another one. */
	if (w->rid->ino && o->rid.ino) {
		if (!same_rid(w->rid, &o->rid))
			return 0;
	} else if (class_of(o) != w->cls) {
		return 0;
	}
	/* Same path, other build-id: the file was replaced. */
	return !(w->bidlen && o->build_id_len &&
		 (o->build_id_len != w->bidlen ||
		  memcmp(o->build_id, w->bid, w->bidlen)));
}

static uint32_t add_object(struct collector *c, uint32_t kind, uint32_t pid,
			   enum obj_class cls, const char *path,
			   const uint8_t *bid, size_t bidlen,
			   const struct collect_file_id *rid, uint64_t start,
			   uint64_t end, uint64_t pgoff)
{
	static const struct collect_file_id none;
	uint64_t h = object_hash(kind, pid, path);
	struct object_want w = {
		.c = c, .kind = kind, .pid = pid, .path = path, .cls = cls,
		.bid = bid, .bidlen = bidlen > 20 ? 20 : bidlen,
		.rid = rid ? rid : &none,
	};
	struct object *o;
	size_t i = hashmap_find(&c->object_index, h, object_is, &w);

	bidlen = w.bidlen;
	rid = w.rid;
	if (i != SIZE_MAX) {
		o = &c->objects[i];
		if (bidlen && !o->build_id_len) {
			memcpy(o->build_id, bid, bidlen);
			o->build_id_len = (uint32_t)bidlen;
		}
		return (uint32_t)i;
	}
	if (ALLOC_GROW(c->objects, c->nobjects + 1, c->alloc_objects))
		goto oom;
	o = &c->objects[c->nobjects];
	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	if (!o->path)
		goto oom;
	o->kind = kind;
	o->pid = pid;
	o->alias = NO_OBJ;
	o->fd = -1;
	o->rid = *rid;
	o->unread = cls == OBJ_UNREAD;
	if (bidlen)
		memcpy(o->build_id, bid, bidlen);
	o->build_id_len = (uint32_t)bidlen;
	o->start = start;
	o->end = end;
	o->pgoff = pgoff;
	if (hashmap_add(&c->object_index, h, c->nobjects)) {
		free(o->path);
		goto oom;
	}
	return (uint32_t)c->nobjects++;
oom:
	c->oom = 1;
	return 0;
}

/* ---- processes --------------------------------------------------------- */

struct process *collect_proc_find(const struct collector *c, uint32_t pid)
{
	size_t mask = c->cap_procs - 1, i = hash_mix64(pid) & mask;

	if (pid == NO_PROC)	/* the empty slots' mark: no process */
		return NULL;
	for (;; i = (i + 1) & mask) {
		if (c->procs[i].pid == pid)
			return &c->procs[i];
		if (c->procs[i].pid == NO_PROC)
			return NULL;
	}
}

static int procs_grow(struct collector *c)
{
	size_t ncap = c->cap_procs * 2, i, j;
	struct process *n = malloc(ncap * sizeof(*n));

	if (!n)
		return -1;
	for (i = 0; i < ncap; i++)
		n[i].pid = NO_PROC;
	for (i = 0; i < c->cap_procs; i++) {
		if (c->procs[i].pid == NO_PROC)
			continue;
		j = hash_mix64(c->procs[i].pid) & (ncap - 1);
		while (n[j].pid != NO_PROC)
			j = (j + 1) & (ncap - 1);
		n[j] = c->procs[i];
	}
	free(c->procs);
	c->procs = n;
	c->cap_procs = ncap;
	return 0;
}

struct process *collect_proc_get(struct collector *c, uint32_t pid)
{
	struct process *p = collect_proc_find(c, pid);
	size_t mask, i;

	if (p || pid == NO_PROC)
		return p;
	if ((c->nprocs + 1) * 4 > c->cap_procs * 3 && procs_grow(c)) {
		c->oom = 1;
		return NULL;
	}
	mask = c->cap_procs - 1;
	i = hash_mix64(pid) & mask;
	while (c->procs[i].pid != NO_PROC)
		i = (i + 1) & mask;
	p = &c->procs[i];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->exe_obj = NO_OBJ;
	p->jitdump_fd = -1;
	c->nprocs++;
	return p;
}

static enum prof_obj_kind kind_of(const char *path)
{
	if (!strcmp(path, "[vdso]"))
		return PROF_OBJ_VDSO;
	if (path[0] == '/' && strncmp(path, "//anon", 6) &&
	    strncmp(path, "/memfd:", 7))
		return PROF_OBJ_FILE;
	return PROF_OBJ_ANON;
}

/* A mapping of pid: its object found or added (cls: what a file is to
 * its path here).  Returns the object, or NO_OBJ. */
static uint32_t map_object(struct collector *c, uint32_t pid, uint64_t start,
			   uint64_t len, uint64_t pgoff, const char *path,
			   const uint8_t *build_id, size_t build_id_len,
			   const struct collect_file_id *rid, uint64_t time,
			   enum obj_class cls)
{
	enum prof_obj_kind kind = kind_of(path);
	struct process *p;
	struct mapping *m;
	uint32_t obj;

	if (pid == UINT32_MAX)	/* the kernel's own maps: not per process */
		return NO_OBJ;
	p = collect_proc_get(c, pid);
	if (!p)
		return NO_OBJ;
	obj = add_object(c, kind, kind == PROF_OBJ_ANON ? pid : NO_PROC,
			 kind == PROF_OBJ_FILE ? cls : OBJ_HERE, path,
			 build_id, build_id_len,
			 kind == PROF_OBJ_FILE ? rid : NULL,
			 start, start + len, pgoff);
	if (ALLOC_GROW(p->maps, p->nmaps + 1, p->alloc_maps)) {
		c->oom = 1;
		return NO_OBJ;
	}
	m = &p->maps[p->nmaps++];
	m->start = start;
	m->end = start + len;
	m->pgoff = pgoff;
	m->obj = obj;
	m->t_from = time;
	m->t_to = T_INF;
	if (p->want_exe && kind == PROF_OBJ_FILE) {
		p->exe_obj = obj;
		p->want_exe = false;
	}
	return obj;
}

void collect_drop_jitdump(struct process *p)
{
	free(p->jitdump);
	p->jitdump = NULL;
	if (p->jitdump_fd >= 0)
		close(p->jitdump_fd);
	p->jitdump_fd = -1;
}

/*
 * A JIT runtime's jitdump file, jit-PID.dump: mapped executable once as
 * a marker, never run.  Its PID is the process's own as it sees it (in a
 * container's pid namespace, not ours), so any number is taken.  Noted
 * for its process (and fd, a file of another mount namespace, kept)
 * instead of mapped; false for any other path.
 */
static bool jitdump_mapped(struct collector *c, uint32_t pid, const char *path,
			   int fd)
{
	const char *base = strrchr(path, '/');
	struct process *p;
	char *end;

	if (!base || strncmp(++base, "jit-", 4) || base[4] < '0' ||
	    base[4] > '9')
		return false;
	strtoul(base + 4, &end, 10);
	if (strcmp(end, ".dump"))
		return false;
	p = collect_proc_get(c, pid);
	if (!p)
		goto done;
	collect_drop_jitdump(p);
	p->jitdump = strdup(path);
	if (!p->jitdump) {
		c->oom = 1;
		goto done;
	}
	p->jitdump_fd = fd;
	return true;
done:
	if (fd >= 0)
		close(fd);
	return true;
}

void collector_mmap(struct collector *c, uint32_t pid, uint64_t start,
		    uint64_t len, uint64_t pgoff, const char *path,
		    const uint8_t *build_id, size_t build_id_len,
		    uint64_t time)
{
	if (jitdump_mapped(c, pid, path, -1))
		return;
	map_object(c, pid, start, len, pgoff, path, build_id, build_id_len,
		   NULL, time, OBJ_HERE);
}

bool collector_file_known(const struct collector *c, const char *path,
			  const struct collect_file_id *rid)
{
	struct object_want w = {
		.c = c, .kind = PROF_OBJ_FILE, .pid = NO_PROC, .path = path,
		.rid = rid, .checked = true,
	};

	return rid->ino &&
	       hashmap_find(&c->object_index,
			    object_hash(PROF_OBJ_FILE, NO_PROC, path),
			    object_is, &w) != SIZE_MAX;
}

/* What the file open at fd is: its identity and build-id. */
static int file_identity(int fd, struct prof_identity *id, uint8_t *bid,
			 size_t size)
{
	struct stat st;
	int n;

	if (fstat(fd, &st))
		return 0;
	id->dev = (uint64_t)st.st_dev;
	id->ino = (uint64_t)st.st_ino;
	id->size = (uint64_t)st.st_size;
	id->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u +
		       (uint64_t)st.st_mtim.tv_nsec;
	n = buildid_read_fd(fd, bid, size);
	return n > 0 ? n : 0;
}

void collector_mmap_file(struct collector *c, uint32_t pid, uint64_t start,
			 uint64_t len, uint64_t pgoff, const char *path,
			 uint64_t time, const struct collect_file_id *rid,
			 int fd, bool foreign, bool unread)
{
	struct prof_identity id = { 0 };
	uint8_t bid[20] = { 0 };
	struct object *o;
	uint32_t obj;
	int n = 0;

	if (jitdump_mapped(c, pid, path, foreign ? fd : -1)) {
		if (!foreign && fd >= 0)
			close(fd);
		return;
	}
	if (fd >= 0)
		n = file_identity(fd, &id, bid, sizeof(bid));
	obj = map_object(c, pid, start, len, pgoff, path, bid, (size_t)n,
			 rid, time, fd >= 0 ? (foreign ? OBJ_FOREIGN : OBJ_HERE) :
			 unread ? OBJ_UNREAD : OBJ_HERE);
	o = obj != NO_OBJ ? &c->objects[obj] : NULL;
	/* The same file as an unchecked one: checked now. */
	if (o && fd >= 0)
		o->unread = false;
	if (o && o->kind == PROF_OBJ_FILE && id.ino && !o->id.ino)
		o->id = id;
	if (o && foreign && fd >= 0 && o->fd < 0 &&
	    o->kind == PROF_OBJ_FILE)
		o->fd = fd;
	else if (fd >= 0)
		close(fd);
}

bool collector_owner_wanted(const struct collector *c, uint32_t pid)
{
	const struct process *p = collect_proc_find(c, pid);

	return !p || !p->uid_known;
}

void collector_set_owner(struct collector *c, uint32_t pid, uint32_t uid)
{
	struct process *p = collect_proc_get(c, pid);

	if (!p)
		return;
	p->uid = uid;
	p->uid_known = true;
}

int collector_owner(const struct collector *c, uint32_t pid, uint32_t *uid)
{
	const struct process *p = collect_proc_find(c, pid);

	if (!p || !p->uid_known)
		return -1;
	*uid = p->uid;
	return 0;
}

void collector_next_exec(struct collector *c, uint32_t pid, const char *buf,
			 size_t len)
{
	struct process *p;

	collector_cmdline(c, pid, buf, len);
	p = collect_proc_find(c, pid);
	if (p && p->cmd)
		p->cmd_next_exec = true;
}

void collector_cmdline(struct collector *c, uint32_t pid, const char *buf,
		       size_t len)
{
	struct process *p = collect_proc_get(c, pid);
	char *cmd;

	if (!p || !len)
		return;
	cmd = malloc(len + 1);
	if (!cmd) {
		c->oom = 1;
		return;
	}
	memcpy(cmd, buf, len);
	cmd[len] = '\0';	/* the last argument ends, whatever was read */
	free(p->cmd);
	p->cmd = cmd;
	p->cmdlen = buf[len - 1] ? len + 1 : len;
}

/* Maps added since the index was built are looked at one by one; the
 * index is built again when they are more than this and a quarter of
 * the indexed ones, so building costs O(log n) a map. */
#define MAPS_UNINDEXED 32

static int cmp_start(const void *a, const void *b, void *ctx)
{
	const struct mapping *maps = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;

	if (maps[i].start != maps[j].start)
		return maps[i].start < maps[j].start ? -1 : 1;
	return i < j ? -1 : 1;
}

/* Index every map of p; 0, or -1 when out of memory (p unchanged). */
static int maps_index(struct process *p)
{
	uint64_t top = 0, *me;
	uint32_t *bs;
	size_t i;

	if (p->alloc_index < p->nmaps) {
		bs = realloc(p->by_start, p->nmaps * 2 * sizeof(*bs));
		if (!bs)
			return -1;
		p->by_start = bs;
		me = realloc(p->max_end, p->nmaps * 2 * sizeof(*me));
		if (!me)
			return -1;
		p->max_end = me;
		p->alloc_index = p->nmaps * 2;
	}
	for (i = 0; i < p->nmaps; i++)
		p->by_start[i] = (uint32_t)i;
	qsort_r(p->by_start, p->nmaps, sizeof(*p->by_start), cmp_start,
		p->maps);
	for (i = 0; i < p->nmaps; i++) {
		if (p->maps[p->by_start[i]].end > top)
			top = p->maps[p->by_start[i]].end;
		p->max_end[i] = top;
	}
	p->nindexed = p->nmaps;
	return 0;
}

static bool map_holds(const struct mapping *m, uint64_t ip, uint64_t time)
{
	return ip >= m->start && ip < m->end && time >= m->t_from &&
	       time < m->t_to;
}

const struct mapping *collect_find_mapping(struct collector *c, uint32_t pid,
					   uint64_t ip, uint64_t time)
{
	struct process *p = collect_proc_find(c, pid);
	size_t i, lo, hi, best = SIZE_MAX;

	if (!p)
		return NULL;
	/* Out of memory, the maps are still found, by the slower way. */
	if (p->nmaps - p->nindexed > MAPS_UNINDEXED + p->nindexed / 4)
		maps_index(p);
	/* Newest first: a later mapping shadows an older one. */
	for (i = p->nmaps; i-- > p->nindexed;)
		if (map_holds(&p->maps[i], ip, time))
			return &p->maps[i];
	/* Among the indexed ones: those starting at or below ip, back to
	 * where no earlier one reaches ip; the newest that holds it. */
	lo = 0;
	hi = p->nindexed;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[p->by_start[mid]].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0 && p->max_end[i] > ip;)
		if (map_holds(&p->maps[p->by_start[i]], ip, time) &&
		    (best == SIZE_MAX || p->by_start[i] > best))
			best = p->by_start[i];
	return best == SIZE_MAX ? NULL : &p->maps[best];
}

int collector_anon_pids(const struct collector *c, uint32_t **pids)
{
	size_t i, j, n = 0;

	*pids = malloc((c->nobjects ? c->nobjects : 1) * sizeof(**pids));
	if (!*pids)
		return -PROF_ENOMEM;
	for (i = 0; i < c->nobjects; i++) {
		const struct object *o = &c->objects[i];

		if (o->kind != PROF_OBJ_ANON || o->pid == NO_PROC)
			continue;
		for (j = 0; j < n && (*pids)[j] != o->pid; j++)
			;
		if (j == n)
			(*pids)[n++] = o->pid;
	}
	return (int)n;
}

const char *collector_jitdump(const struct collector *c, uint32_t pid, int *fd)
{
	const struct process *p = collect_proc_find(c, pid);

	*fd = p ? p->jitdump_fd : -1;
	return p ? p->jitdump : NULL;
}

int collector_set_jit_map(struct collector *c, uint32_t pid, const char *path,
			  struct prof_jitmap *map)
{
	uint32_t jit = collect_add_object(c, PROF_OBJ_JIT, pid, false, path,
					  NULL, 0, NULL, 0, 0, 0);
	size_t i;

	if (c->oom)
		return -PROF_ENOMEM;
	if (!c->objects[jit].jit) {
		c->objects[jit].jit = malloc(sizeof(*map));
		if (!c->objects[jit].jit)
			return -PROF_ENOMEM;
	} else {
		profile_jitmap_free(c->objects[jit].jit);
	}
	*c->objects[jit].jit = *map;
	memset(map, 0, sizeof(*map));
	for (i = 0; i < c->nobjects; i++)
		if (c->objects[i].kind == PROF_OBJ_ANON &&
		    c->objects[i].pid == pid)
			c->objects[i].alias = jit;
	return 0;
}
