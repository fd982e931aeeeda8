/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util/array.h"
#include "common/util/buildid.h"
#include "collect_int.h"
#include "common/util/error.h"
#include "common/util/hash.h"
#include "common/util/regfile.h"
#include "common/stats/stats.h"

struct collector *collector_new(enum collect_split split, size_t nstats)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->split = split;
	c->nstats = nstats;
	c->samples = calloc(nstats ? nstats : 1, sizeof(uint64_t));
	c->lost = calloc(nstats ? nstats : 1, sizeof(uint64_t));
	c->row_modes = calloc(nstats ? nstats : 1, sizeof(unsigned));
	c->exact = calloc(nstats ? nstats : 1, 1);
	for (size_t i = 0; c->row_modes && i < nstats; i++)
		c->row_modes[i] = STAT_MODE_USER | STAT_MODE_KERNEL |
				  STAT_MODE_HV;
	c->cap_procs = 64;
	c->procs = malloc(c->cap_procs * sizeof(*c->procs));
	c->cap_agg = 4096;
	c->agg = calloc(c->cap_agg, sizeof(*c->agg));
	c->cap_threads = 64;
	c->threads = malloc(c->cap_threads * sizeof(*c->threads));
	if (!c->samples || !c->lost || !c->row_modes || !c->exact ||
	    !c->procs || !c->agg || !c->threads) {
		collector_free(c);
		return NULL;
	}
	for (size_t i = 0; i < c->cap_procs; i++)
		c->procs[i].pid = NO_PROC;
	for (size_t i = 0; i < c->cap_threads; i++)
		c->threads[i].tid = NO_PROC;
	c->task_nobody = NO_TASK;
	c->obj_kernel = collect_add_object(c, PROF_OBJ_KERNEL, NO_PROC, false,
					   "[kernel.kallsyms]", NULL, 0, NULL,
					   0, 0, 0);
	c->obj_unknown = collect_add_object(c, PROF_OBJ_ANON, NO_PROC, false,
					    "[unknown]", NULL, 0, NULL, 0, 0, 0);
	c->obj_guest = collect_add_object(c, PROF_OBJ_ANON, NO_PROC, false,
					  "[guest]", NULL, 0, NULL, 0, 0, 0);
	c->obj_hv = collect_add_object(c, PROF_OBJ_ANON, NO_PROC, false,
				       "[hypervisor]", NULL, 0, NULL, 0, 0, 0);
	if (c->oom) {
		collector_free(c);
		return NULL;
	}
	return c;
}

void collector_free(struct collector *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nobjects; i++) {
		free(c->objects[i].path);
		if (c->objects[i].jit)
			profile_jitmap_free(c->objects[i].jit);
		if (c->objects[i].fd >= 0)
			close(c->objects[i].fd);
		free(c->objects[i].jit);
	}
	free(c->objects);
	hashmap_release(&c->object_index);
	for (i = 0; i < c->npyfuncs; i++)
		free(c->pyfuncs[i].name);
	free(c->pyfuncs);
	hashmap_release(&c->pyfunc_index);
	for (i = 0; c->procs && i < c->cap_procs; i++)
		if (c->procs[i].pid != NO_PROC) {
			free(c->procs[i].maps);
			free(c->procs[i].by_start);
			free(c->procs[i].max_end);
			free(c->procs[i].cmd);
			free(c->procs[i].jitdump);
			if (c->procs[i].jitdump_fd >= 0)
				close(c->procs[i].jitdump_fd);
		}
	free(c->procs);
	free(c->agg);
	free(c->events);
	collect_offcpu_free(c->offcpu);
	free(c->threads);
	free(c->tasks);
	for (i = 0; i < c->nparked; i++)
		free(c->parked[i].copy);
	free(c->parked);
	collect_stacks_free(c->stacks);
	free(c->modes);
	free(c->expected);
	free(c->cpus);
	free(c->ranges);
	free(c->samples);
	free(c->lost);
	free(c->row_modes);
	free(c->exact);
	free(c);
}

void collector_set_modes(struct collector *c, uint32_t stat, unsigned modes)
{
	if (stat < c->nstats)
		c->row_modes[stat] = modes;
}

void collector_set_find(struct collector *c, collect_find_fn find, void *arg)
{
	c->find = find;
	c->find_arg = arg;
}

struct pyfunc_key {
	const struct collector *c;
	uint32_t obj;
	int firstlineno;
	const char *name;
};

static int pyfunc_eq(const void *ctx, size_t entry)
{
	const struct pyfunc_key *k = ctx;
	const struct pyfunc *f = &k->c->pyfuncs[entry];

	return f->obj == k->obj && f->firstlineno == k->firstlineno &&
	       !strcmp(f->name, k->name);
}

int collector_python_function(struct collector *c, const char *file,
			      const char *qualname, int firstlineno,
			      uint32_t *obj, uint64_t *function)
{
	struct pyfunc_key k = { c, 0, firstlineno, qualname };
	uint64_t h;
	size_t i;

	k.obj = collect_add_object(c, PROF_OBJ_PYTHON, NO_PROC, false, file,
				   NULL, 0, NULL, 0, 0, 0);
	if (c->oom)
		return -PROF_ENOMEM;
	h = hash_str(hash_mem(HASH_STR_SEED, &k.obj, sizeof(k.obj)),
		     qualname) ^ (uint64_t)(unsigned)firstlineno;
	i = hashmap_find(&c->pyfunc_index, h, pyfunc_eq, &k);
	if (i == SIZE_MAX) {
		struct pyfunc *f;

		if (ALLOC_GROW(c->pyfuncs, c->npyfuncs + 1, c->alloc_pyfuncs) ||
		    hashmap_add(&c->pyfunc_index, h, c->npyfuncs))
			return -PROF_ENOMEM;
		f = &c->pyfuncs[c->npyfuncs];
		f->obj = k.obj;
		f->firstlineno = firstlineno;
		f->name = strdup(qualname);
		if (!f->name)
			return -PROF_ENOMEM;
		i = c->npyfuncs++;
	}
	*obj = k.obj;
	*function = i;
	return 0;
}

void collector_set_exact(struct collector *c, uint32_t stat)
{
	if (stat < c->nstats)
		c->exact[stat] = 1;
}

int collector_add_cpu(struct collector *c, uint32_t cpu)
{
	if (ALLOC_GROW(c->cpus, c->ncpus + 1, c->alloc_cpus))
		return -PROF_ENOMEM;
	c->cpus[c->ncpus++] = cpu;
	return 0;
}

static int cpu_profiled(const struct collector *c, uint32_t cpu)
{
	size_t i;

	for (i = 0; i < c->ncpus; i++)
		if (c->cpus[i] == cpu)
			return 1;
	return 0;
}

int collector_expect_split(struct collector *c, uint32_t split)
{
	if (ALLOC_GROW(c->expected, c->nexpected + 1, c->alloc_expected))
		return -PROF_ENOMEM;
	c->expected[c->nexpected++] = split;
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct collect_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int collector_set_caller_ranges(struct collector *c,
				const struct collect_range *r, size_t n)
{
	size_t i, k = 0;

	free(c->ranges);
	c->ranges = NULL;
	c->nranges = 0;
	if (!n)
		return 0;
	c->ranges = malloc(n * sizeof(*r));
	if (!c->ranges)
		return -PROF_ENOMEM;
	memcpy(c->ranges, r, n * sizeof(*r));
	qsort(c->ranges, n, sizeof(*r), cmp_range);
	for (i = 1; i < n; i++) {
		if (c->ranges[i].start <= c->ranges[k].end) {
			if (c->ranges[i].end > c->ranges[k].end)
				c->ranges[k].end = c->ranges[i].end;
		} else {
			c->ranges[++k] = c->ranges[i];
		}
	}
	c->nranges = k + 1;
	return 0;
}

void collector_set_time_base(struct collector *c, uint64_t time)
{
	c->keep_time = true;
	c->time_base = time;
}

uint64_t collector_moved(const struct collector *c)
{
	return c->moved;
}

static int in_ranges(const struct collector *c, uint64_t ip)
{
	size_t lo = 0, hi = c->nranges;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ip < c->ranges[mid].start)
			hi = mid;
		else if (ip >= c->ranges[mid].end)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/*
 * The caller of a utility routine: the first kernel return address in the
 * chain outside every range.  Entries >= PERF_CONTEXT_MAX are context
 * markers; the first real entry is the sample's own ip.
 */
static uint64_t caller_of(struct collector *c, const struct collect_sample *s)
{
	uint64_t i;

	for (i = 0; i < s->nchain; i++) {
		uint64_t ip = s->chain[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			if (ip != (uint64_t)PERF_CONTEXT_KERNEL)
				break;	/* user part: not followed */
			continue;
		}
		if (!in_ranges(c, ip)) {
			c->moved++;
			/* A return address points after the call. */
			return ip - 1;
		}
	}
	return s->ip;
}

/*
 * -pids: a process born or exec'd while profiling gets its file even if
 * it was never sampled (processes that existed before only if sampled:
 * system-wide, that is every process of the machine).
 */
static void expect_process(struct collector *c, uint32_t pid)
{
	size_t i;

	if (c->split != COLLECT_SPLIT_PID)
		return;
	for (i = 0; i < c->nexpected; i++)
		if (c->expected[i] == pid)
			return;
	if (collector_expect_split(c, pid))
		c->oom = 1;
}

/*
 * Thread t took its new name (t->comm) at time, and task k, its old name,
 * has only samples taken after that: they came in a drain before the
 * rename's record (another CPU's ring, read before the record was
 * written), and are the new name's.  Then k takes the name, and 1 is
 * returned; 0 where k keeps its samples (one was taken before, or a
 * task of the thread has the new name already).
 */
static int renamed_before(struct collector *c, uint32_t k,
			  const struct thread *t, uint64_t time)
{
	size_t i;

	/* (A record without its time, 0, says nothing of the order.) */
	if (!time || c->tasks[k].first <= time)
		return 0;
	for (i = 0; i < c->ntasks; i++)
		if (c->tasks[i].tid == t->tid && c->tasks[i].pid == t->pid &&
		    !memcmp(c->tasks[i].comm, t->comm, sizeof(t->comm)))
			return 0;
	memcpy(c->tasks[k].comm, t->comm, sizeof(t->comm));
	return 1;
}

void collector_comm(struct collector *c, uint32_t pid, uint32_t tid,
		    const char *comm, int exec, uint64_t time)
{
	struct process *p;
	size_t i;

	struct thread *t = collect_thread_get(c, pid, tid);

	if (t) {
		uint32_t k = t->task;

		collect_thread_name(t, comm);
		t->recorded = true;
		if (t->task == NO_TASK && k != NO_TASK &&
		    renamed_before(c, k, t, time))
			t->task = k;
	}
	if (!exec)
		return;
	expect_process(c, pid);
	p = collect_proc_get(c, pid);
	if (!p)
		return;
	/* exec replaced the program and its arguments (the engine gives
	 * the new ones when it can still read them, or gave them ahead). */
	if (!p->cmd_next_exec) {
		free(p->cmd);
		p->cmd = NULL;
	}
	p->cmd_next_exec = false;
	p->uid_known = false;	/* a set-user-ID program runs as another */
	collect_drop_jitdump(p);
	p->exe_obj = NO_OBJ;
	p->want_exe = true;
	/* exec replaced the address space: earlier maps end now. */
	for (i = 0; i < p->nmaps; i++)
		if (p->maps[i].t_to == T_INF && p->maps[i].t_from <= time)
			p->maps[i].t_to = time;
}

void collector_comm_scanned(struct collector *c, uint32_t pid, uint32_t tid,
			    const char *comm)
{
	struct thread *t = collect_thread_get(c, pid, tid);

	/* Older news than a COMM or FORK record already met (an exec
	 * racing the scan). */
	if (t && !t->recorded)
		collect_thread_name(t, comm);
}

void collector_fork(struct collector *c, uint32_t pid, uint32_t ppid,
		    uint32_t tid, uint32_t ptid, uint64_t time)
{
	struct process *parent, *child;
	struct thread *maker = collect_thread_find(c, ptid), *t;
	char comm[COMM_LEN] = "";
	size_t i;

	if (maker && maker->pid == ppid)
		memcpy(comm, maker->comm, sizeof(comm));
	t = collect_thread_get(c, pid, tid);
	if (t) {
		/* A fresh thread: whatever the tid had before is gone. */
		t->comm[0] = '\0';
		collect_thread_name(t, comm);
		t->task = NO_TASK;
		t->recorded = true;
	}
	if (pid == ppid)	/* a new thread shares its process's maps */
		return;
	expect_process(c, pid);
	child = collect_proc_get(c, pid);
	parent = collect_proc_find(c, ppid);
	if (!child || !parent)
		return;
	/* proc_get may have moved the table: look the parent up again. */
	parent = collect_proc_find(c, ppid);
	child->nmaps = 0;
	child->nindexed = 0;
	child->cmd_next_exec = false;
	child->uid_known = false;
	collect_drop_jitdump(child);
	/* A fork runs its parent's program with its arguments. */
	free(child->cmd);
	child->cmd = NULL;
	if (parent->cmd) {
		child->cmd = malloc(parent->cmdlen);
		if (!child->cmd) {
			c->oom = 1;
			return;
		}
		memcpy(child->cmd, parent->cmd, parent->cmdlen);
		child->cmdlen = parent->cmdlen;
	}
	child->exe_obj = parent->exe_obj;
	child->want_exe = parent->want_exe;
	for (i = 0; i < parent->nmaps; i++) {
		struct mapping m = parent->maps[i];

		if (m.t_to <= time)
			continue;
		if (ALLOC_GROW(child->maps, child->nmaps + 1,
			       child->alloc_maps)) {
			c->oom = 1;
			return;
		}
		m.t_from = 0;	/* valid in the child since its birth */
		child->maps[child->nmaps++] = m;
	}
}

void collector_exit(struct collector *c, uint32_t pid, uint32_t tid,
		    uint64_t time)
{
	/* Maps are kept: samples of the process may still be undrained. */
}

/* ---- aggregation ------------------------------------------------------- */

/* A sample charged at (obj, offset): its stack first, when kept. */
static void charge_sample(struct collector *c, const struct collect_sample *s,
			  uint32_t obj, uint64_t offset, uint32_t split,
			  uint32_t task, int with_stack)
{
	struct charge k = {
		.obj = obj, .offset = offset, .stat = s->stat, .split = split,
		.task = task, .cpu = s->cpu, .weight = s->period,
		.time = s->time,
	};

	if (with_stack && c->stacks) {
		k.stack = collect_stacks_charge(c, s, split);
		/* Python: the row is the innermost function (the stack's
		 * leaf), not the interpreter's code the PC was in. */
		if (s->npy && k.stack)
			collect_stacks_leaf(c, k.stack - 1, &k.obj, &k.offset);
	}
	collect_aggregate(c, &k);
}

static void count_mode(struct collector *c, uint32_t cpu, enum prof_mode m)
{
	if (cpu == PROF_CPU_UNKNOWN) {
		c->modes_unknown.cpu = cpu;
		c->modes_unknown.n[m]++;
		return;
	}
	if (cpu >= c->nmodes) {
		size_t i;

		if (cpu > 65535 ||
		    ALLOC_GROW(c->modes, (size_t)cpu + 1, c->alloc_modes)) {
			c->oom = 1;
			return;
		}
		for (i = c->nmodes; i <= cpu; i++) {
			memset(&c->modes[i], 0, sizeof(c->modes[i]));
			c->modes[i].cpu = (uint32_t)i;
		}
		c->nmodes = (size_t)cpu + 1;
	}
	c->modes[cpu].n[m]++;
}

static uint32_t split_of(const struct collector *c,
			 const struct collect_sample *s)
{
	switch (c->split) {
	case COLLECT_SPLIT_PID: return s->pid;
	case COLLECT_SPLIT_CPU: return s->cpu;
	default: return 0;
	}
}

/* Returns 0 when the sample was charged, -1 when its map is unknown. */
static int charge_user(struct collector *c, const struct collect_sample *s,
		       uint32_t task, int final)
{
	const struct mapping *m = collect_find_mapping(c, s->pid, s->ip,
						       s->time);

	if (m) {
		uint64_t off = c->objects[m->obj].kind == PROF_OBJ_ANON ?
			       s->ip : s->ip - m->start + m->pgoff;

		charge_sample(c, s, m->obj, off, split_of(c, s), task, 1);
	} else if (final) {
		charge_sample(c, s, c->obj_unknown, s->ip, split_of(c, s),
			      task, 1);
	} else {
		return -1;
	}
	return 0;
}

void collector_sample(struct collector *c, const struct collect_sample *s)
{
	uint32_t split = split_of(c, s), task;
	struct collect_sample entry;

	if (s->stat >= c->nstats)
		return;
	/* Named now: a name it takes later is not this sample's. */
	task = collect_task_of(c, s->pid, s->tid, s->time);
	switch (s->cpumode) {
	case PERF_RECORD_MISC_KERNEL:
		count_mode(c, s->cpu, s->pid == 0 ? PROF_MODE_IDLE :
			   PROF_MODE_KERNEL);
		if (!(c->row_modes[s->stat] & STAT_MODE_KERNEL)) {
			/* wall's time in the kernel is the user code's
			 * that entered it (its system call, its fault). */
			entry = *s;
			if (!collect_offcpu_entry(c, s, &entry.ip))
				return;
			/* Its stack is the user's from there. */
			collect_user_part(&entry, entry.ip);
			s = &entry;
			c->samples[s->stat] += c->exact[s->stat] ?
					       s->period : 1;
			break;
		}
		c->samples[s->stat] += c->exact[s->stat] ? s->period : 1;
		charge_sample(c, s, c->obj_kernel,
			      c->nranges && in_ranges(c, s->ip) ?
			      caller_of(c, s) : s->ip, split, task, 1);
		return;
	case PERF_RECORD_MISC_USER:
		count_mode(c, s->cpu, PROF_MODE_USER);
		if (!(c->row_modes[s->stat] & STAT_MODE_USER))
			return;
		c->samples[s->stat] += c->exact[s->stat] ? s->period : 1;
		break;
	case PERF_RECORD_MISC_GUEST_KERNEL:
	case PERF_RECORD_MISC_GUEST_USER:
		count_mode(c, s->cpu, PROF_MODE_GUEST);
		c->samples[s->stat] += c->exact[s->stat] ? s->period : 1;
		charge_sample(c, s, c->obj_guest, s->ip, split, task, 0);
		return;
	case PERF_RECORD_MISC_HYPERVISOR:
		count_mode(c, s->cpu, PROF_MODE_HV);
		c->samples[s->stat] += c->exact[s->stat] ? s->period : 1;
		charge_sample(c, s, c->obj_hv, s->ip, split, task, 0);
		return;
	default:
		c->samples[s->stat] += c->exact[s->stat] ? s->period : 1;
		charge_sample(c, s, c->obj_unknown, s->ip, split, task, 0);
		return;
	}
	if (charge_user(c, s, task, 0) == 0)
		return;
	if (ALLOC_GROW(c->parked, c->nparked + 1, c->alloc_parked)) {
		c->oom = 1;
		return;
	}
	c->parked[c->nparked].s = *s;
	c->parked[c->nparked].copy = NULL;
	c->parked[c->nparked].task = task;
	c->parked[c->nparked].rounds = 0;
	/* The sample points into the ring buffer, which moves on. */
	if (c->stacks) {
		c->parked[c->nparked].copy =
			collect_stacks_copy(&c->parked[c->nparked].s);
		if (!c->parked[c->nparked].copy) {
			c->oom = 1;
			return;
		}
	}
	c->nparked++;
}

static void retry_parked(struct collector *c, int final)
{
	size_t i, kept = 0;

	for (i = 0; i < c->nparked; i++) {
		struct parked *p = &c->parked[i];
		int last = final || ++p->rounds >= PENDING_ROUNDS;

		if (charge_user(c, &p->s, p->task, last) == 0) {
			free(p->copy);
			continue;
		}
		c->parked[kept++] = *p;
	}
	c->nparked = kept;
}

void collector_round_end(struct collector *c)
{
	retry_parked(c, 0);
}

void collector_lost(struct collector *c, uint32_t stat, uint64_t n)
{
	if (stat < c->nstats)
		c->lost[stat] += n;
	else
		/* Records of the ring (switch records among them) lost:
		 * the off-CPU times may be low. */
		collect_offcpu_lost(c, n);
}

uint64_t collector_samples(const struct collector *c, uint32_t stat)
{
	return stat < c->nstats ? c->samples[stat] : 0;
}

uint64_t collector_lost_total(const struct collector *c, uint32_t stat)
{
	return stat < c->nstats ? c->lost[stat] : 0;
}

/* ---- building profiles ------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int copy_meta(struct profile *dst, const struct profile *src)
{
#define DUP(f) do { \
		if (src->f && !(dst->f = strdup(src->f))) return -1; \
	} while (0)
	DUP(tool);
	DUP(tool_version);
	DUP(recorded_by);
	DUP(hostname);
	DUP(sysname);
	DUP(release);
	DUP(machine);
	DUP(cpu_model);
#undef DUP
	dst->start_time_ns = src->start_time_ns;
	dst->duration_ns = src->duration_ns;
	dst->exit_status = src->exit_status;
	dst->ncpus = src->ncpus;
	if (src->ra_routines && !(dst->ra_routines = strdup(src->ra_routines)))
		return -1;
	dst->ra_moved = src->ra_moved;
	if (src->start_after && !(dst->start_after = strdup(src->start_after)))
		return -1;
	dst->start_after_ns = src->start_after_ns;
	dst->start_after_latency_ns = src->start_after_latency_ns;
	dst->call_graph = src->call_graph;
	dst->stack_dump = src->stack_dump;
	return profile_set_argv(dst, src->argc, src->argv);
}

/* Add collector object obj to p and note its index in remap[obj]. */
static int add_profile_object(struct collector *c, struct profile *p,
			      uint32_t *remap, uint32_t obj)
{
	const struct object *o = &c->objects[obj];
	struct prof_object po = {
		.path = o->path, .kind = o->kind,
		.build_id_len = o->build_id_len,
		.start = o->start, .end = o->end, .pgoff = o->pgoff,
	};
	int idx;

	/* Anonymous code a perf map names: its process's JIT object. */
	if (o->alias != NO_OBJ) {
		if (remap[o->alias] == UINT32_MAX &&
		    (idx = add_profile_object(c, p, remap, o->alias)) < 0)
			return idx;
		remap[obj] = remap[o->alias];
		return (int)remap[obj];
	}
	memcpy(po.build_id, o->build_id, sizeof(po.build_id));
	po.id = o->id;
	if (o->unread)
		po.id.flags |= PROF_ID_UNREAD;
	/* An object the engine checked has its build-id from the mapped
	 * file: the path may name another file now (a profiled user's link
	 * to a file it cannot read).  Only the sim engine's, which maps
	 * files it loaded itself, are read by path. */
	if (!po.build_id_len && o->kind == PROF_OBJ_FILE && o->fd < 0 &&
	    !o->unread && !o->id.ino) {
		int n = buildid_read(o->path, po.build_id, sizeof(po.build_id));

		po.build_id_len = n > 0 ? (uint32_t)n : 0;
	}
	/* The running kernel's: what finds its debug info (vmlinux) when
	 * the profile is reported, here or elsewhere. */
	if (!po.build_id_len && o->kind == PROF_OBJ_KERNEL) {
		int n = buildid_read_notes(NULL, po.build_id,
					   sizeof(po.build_id));

		po.build_id_len = n > 0 ? (uint32_t)n : 0;
	}
	idx = profile_add_object(p, &po);
	if (idx < 0)
		return idx;
	remap[obj] = (uint32_t)idx;
	return idx;
}

static int cmp_agg(const void *a, const void *b)
{
	const struct agg_entry *x = *(const struct agg_entry *const *)a;
	const struct agg_entry *y = *(const struct agg_entry *const *)b;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->stat != y->stat)
		return x->stat < y->stat ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* The counts of split in p, and their task counts: the entries of one
 * (object, statistic, offset) summed into its count, each one a task
 * count, the tasks added as used. */
static int build_counts(struct collector *c, uint32_t split,
			struct profile *p, uint32_t *remap, uint32_t *tc_of)
{
	const struct agg_entry **es = NULL;
	uint32_t *tremap = NULL;
	size_t n = 0, alloc = 0, i, j;
	int r = -PROF_ENOMEM;

	for (i = 0; i < c->cap_agg; i++) {
		const struct agg_entry *e = &c->agg[i];

		if (!e->used || e->split != split || e->stat >= p->nstats)
			continue;
		if (ALLOC_GROW(es, n + 1, alloc))
			goto out;
		es[n++] = e;
	}
	tremap = malloc((c->ntasks ? c->ntasks : 1) * sizeof(*tremap));
	if (!tremap)
		goto out;
	for (i = 0; i < c->ntasks; i++)
		tremap[i] = NO_TASK;
	if (n > 1)
		qsort(es, n, sizeof(*es), cmp_agg);
	/* The tasks used, in the order they began (a thread's names in
	 * the order it had them: the last is its name now). */
	for (i = 0; i < n; i++)
		if (es[i]->task < c->ntasks)
			tremap[es[i]->task] = 0;
	for (i = 0; i < c->ntasks; i++) {
		int ti;

		if (tremap[i] == NO_TASK)
			continue;
		ti = profile_add_task(p, c->tasks[i].pid, c->tasks[i].tid,
				      c->tasks[i].comm);
		if (ti < 0)
			goto out;
		tremap[i] = (uint32_t)ti;
	}
	for (i = 0; i < n; i = j) {
		const struct agg_entry *e = es[i];
		struct prof_count k = { .stat = e->stat, .offset = e->offset };

		if (remap[e->obj] == UINT32_MAX &&
		    (r = add_profile_object(c, p, remap, e->obj)) < 0)
			goto out;
		r = -PROF_ENOMEM;
		k.obj = remap[e->obj];
		for (j = i; j < n && es[j]->obj == e->obj &&
		     es[j]->stat == e->stat && es[j]->offset == e->offset;
		     j++) {
			const struct agg_entry *x = es[j];
			struct prof_task_count tc = {
				.cpu = x->cpu, .state = x->state,
				.obj = k.obj, .stat = k.stat,
				.offset = k.offset, .samples = x->samples,
				.weight = x->weight,
			};
			int ti;

			k.samples += x->samples;
			k.weight += x->weight;
			if (x->task >= c->ntasks)
				continue;
			tc.task = tremap[x->task];
			ti = profile_add_task_count(p, &tc);
			if (ti < 0)
				goto out;
			tc_of[x->id] = (uint32_t)ti;
		}
		if (profile_add_count(p, &k) < 0)
			goto out;
		p->stats[e->stat].samples += k.samples;
	}
	r = 0;
out:
	free(es);
	free(tremap);
	return r;
}

/*
 * A -pids file shows its process's own command: the arguments it was
 * exec'd with, else the program it exec'd, else (it never exec'd while
 * profiled and its arguments were not read) the profiled command's.
 */
static int own_command(struct collector *c, struct profile *p, uint32_t pid)
{
	const struct process *pr = collect_proc_find(c, pid);
	char **argv, *s;
	size_t n = 0, i;
	int r;

	if (!pr)
		return 0;
	if (!pr->cmd) {
		if (pr->exe_obj == NO_OBJ)
			return 0;
		s = c->objects[pr->exe_obj].path;
		return profile_set_argv(p, 1, &s) ? -PROF_ENOMEM : 0;
	}
	for (i = 0; i < pr->cmdlen; i++)
		n += !pr->cmd[i];
	argv = malloc((n ? n : 1) * sizeof(*argv));
	if (!argv)
		return -PROF_ENOMEM;
	for (s = pr->cmd, i = 0; i < n; i++, s += strlen(s) + 1)
		argv[i] = s;
	r = profile_set_argv(p, (int)n, argv);
	free(argv);
	return r ? -PROF_ENOMEM : 0;
}

static int cmp_u64p(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The symbols of each JIT object of p that name its counts and frames. */
static int add_jit_symbols(struct collector *c, struct profile *p,
			   const uint32_t *remap)
{
	uint64_t *addrs = NULL;
	size_t i, k, n, u, alloc = 0;
	int r = 0;

	for (i = 0; i < c->nobjects && r >= 0; i++) {
		uint32_t obj = remap[i];

		if (!c->objects[i].jit || obj == UINT32_MAX)
			continue;
		n = 0;
		for (k = 0; k < p->ncounts + p->nframes; k++) {
			uint32_t o = k < p->ncounts ? p->counts[k].obj :
				     p->frames[k - p->ncounts].obj;

			if (o != obj)
				continue;
			if (ALLOC_GROW(addrs, n + 1, alloc)) {
				r = -PROF_ENOMEM;
				break;
			}
			addrs[n++] = k < p->ncounts ? p->counts[k].offset :
				     p->frames[k - p->ncounts].offset;
		}
		if (r < 0)
			break;
		if (n > 1)
			qsort(addrs, n, sizeof(*addrs), cmp_u64p);
		for (k = 0, u = 0; k < n; k++)		/* unique */
			if (!u || addrs[u - 1] != addrs[k])
				addrs[u++] = addrs[k];
		r = profile_jitmap_keep(p, obj, c->objects[i].jit, addrs, u);
	}
	free(addrs);
	/* Python functions: each over its offsets (its lines). */
	for (i = 0; i < c->npyfuncs && r >= 0; i++) {
		const struct pyfunc *f = &c->pyfuncs[i];
		struct prof_jitsym j = {
			.obj = remap[f->obj],
			.start = (uint64_t)i << PROF_PY_LINE_BITS,
			.end = (uint64_t)(i + 1) << PROF_PY_LINE_BITS,
			.name = f->name,
		};

		if (j.obj != UINT32_MAX)
			r = profile_add_jitsym(p, &j);
	}
	profile_sort_jitsyms(p);
	return r < 0 ? r : 0;
}

/* The files of other mount namespaces that p's objects are, carried in
 * p: the report reads them as an archive's (a container's processes are
 * gone, and their files are not at their paths here).  A file that
 * cannot be read is left out: its rows are then addresses. */
static int add_foreign_files(struct collector *c, struct profile *p,
			     const uint32_t *remap)
{
	size_t i;

	for (i = 0; i < c->nobjects; i++) {
		const struct object *o = &c->objects[i];
		const struct prof_object *po;
		struct stat st;
		int r;

		if (o->fd < 0 || remap[i] == UINT32_MAX)
			continue;
		po = &p->objects[remap[i]];
		/* What was mapped, not what the process made of the file
		 * since (grown, to fill the profile). */
		if (fstat(o->fd, &st) || (uint64_t)st.st_size != o->id.size) {
			char line[PATH_MAX + 96];

			snprintf(line, sizeof(line), "'%s' is not archived: "
				 "its size changed after it was mapped",
				 po->path);
			if (profile_file_left_out(p, line))
				return -PROF_ENOMEM;
			continue;
		}
		/* Compressed as it is read; a file over the caps is left
		 * out, named in p->files_left_out, and so is one that
		 * cannot be read: its rows are addresses. */
		r = profile_add_file_fd(p, PROF_FILE_OBJECT, po->path,
					po->build_id, po->build_id_len, o->fd);
		if (r == -PROF_ENOMEM)
			return r;
	}
	return 0;
}

static int cmp_event_time(const void *a, const void *b)
{
	const struct prof_event *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	/* Equal times: the order they came in (tcount holds it here). */
	return x->tcount < y->tcount ? -1 : x->tcount > y->tcount;
}

/*
 * The time stream of p: the events of its task counts (tc_of: the task
 * count of each entry id, UINT32_MAX none: another split's), in time
 * order, their stacks through smap.  A profile whose statistics all
 * count exactly has none.
 */
static int build_events(struct collector *c, struct profile *p,
			const uint32_t *tc_of, const uint32_t *smap)
{
	size_t i, n = 0;
	uint32_t *order = NULL;

	p->timeline = PROF_TIMELINE_EXACT;
	for (i = 0; i < c->nstats && i < p->nstats; i++)
		if (c->keep_time && !c->exact[i] &&
		    !(p->stats[i].flags & PROF_STAT_COUNTING))
			p->timeline = PROF_TIMELINE_KEPT;
	if (p->timeline != PROF_TIMELINE_KEPT)
		return 0;
	for (i = 0; i < c->nevents; i++)
		if (tc_of[c->events[i].agg] != UINT32_MAX)
			n++;
	p->events = malloc((n ? n : 1) * sizeof(*p->events));
	order = malloc((n ? n : 1) * sizeof(*order));
	if (!p->events || !order) {
		free(order);
		return -PROF_ENOMEM;
	}
	p->alloc_events = n ? n : 1;
	for (i = 0; i < c->nevents; i++) {
		const struct cevent *e = &c->events[i];
		uint32_t tc = tc_of[e->agg];

		if (tc == UINT32_MAX)
			continue;
		order[p->nevents] = tc;
		p->events[p->nevents] = (struct prof_event){
			.time = e->time, .weight = e->weight,
			/* For the sort: its place in the stream. */
			.tcount = (uint32_t)p->nevents,
			.stack = e->stack && smap ? smap[e->stack - 1] + 1 : 0,
		};
		p->nevents++;
	}
	/* Samples come in time order (each round of the rings is sorted):
	 * sort only when some did not (off-CPU intervals, charged when they
	 * end). */
	for (i = 1; i < p->nevents; i++)
		if (p->events[i].time < p->events[i - 1].time)
			break;
	if (i < p->nevents)
		qsort(p->events, p->nevents, sizeof(*p->events),
		      cmp_event_time);
	for (i = 0; i < p->nevents; i++)
		p->events[i].tcount = order[p->events[i].tcount];
	free(order);
	return 0;
}

static int build_one(struct collector *c, const struct profile *tpl,
		     uint32_t split, struct profile **out)
{
	struct profile *p = profile_new();
	uint32_t *remap = NULL, *tc_of = NULL, *smap = NULL;
	size_t i, last;
	int r;

	*out = p;
	if (!p || copy_meta(p, tpl))
		return -PROF_ENOMEM;
	if (c->split == COLLECT_SPLIT_PID) {
		p->pid = (int32_t)split;
		r = own_command(c, p, split);
		if (r)
			return r;
	}
	if (c->split == COLLECT_SPLIT_CPU)
		p->cpu = (int32_t)split;
	for (i = 0; i < tpl->nstats; i++) {
		struct prof_stat s = tpl->stats[i];

		s.samples = 0;
		s.lost = c->split == COLLECT_SPLIT_NONE && i < c->nstats ?
			 c->lost[i] : 0;
		if (profile_add_stat(p, &s) < 0)
			return -PROF_ENOMEM;
	}
	remap = malloc((c->nobjects ? c->nobjects : 1) * sizeof(*remap));
	tc_of = malloc((c->nagg + 1) * sizeof(*tc_of));
	if (!remap || !tc_of) {
		free(remap);
		free(tc_of);
		return -PROF_ENOMEM;
	}
	for (i = 0; i < c->nobjects; i++)
		remap[i] = UINT32_MAX;
	memset(tc_of, 0xff, (c->nagg + 1) * sizeof(*tc_of));
	r = build_counts(c, split, p, remap, tc_of);
	if (!r && c->stacks)
		r = collect_stacks_build(c, split, p, remap, &smap,
					 add_profile_object);
	if (!r)
		r = build_events(c, p, tc_of, smap);
	if (!r)
		r = add_jit_symbols(c, p, remap);
	if (!r)
		r = add_foreign_files(c, p, remap);
	free(remap);
	free(tc_of);
	free(smap);
	if (r < 0)
		return r;
	if (p->ncounts > 1)
		profile_sort_counts(p);
	/* A row for every CPU profiled (sampled or not) and every CPU
	 * sampled; with -each only the file's own CPU. */
	last = c->nmodes;
	for (i = 0; i < c->ncpus; i++)
		if (c->cpus[i] + 1 > last)
			last = c->cpus[i] + 1;
	for (i = 0; i < last; i++) {
		struct prof_modes row = { .cpu = (uint32_t)i };
		uint64_t any = 0;
		int m;

		if (i < c->nmodes)
			row = c->modes[i];
		for (m = 0; m < PROF_NMODES; m++)
			any |= row.n[m];
		if ((!any && !cpu_profiled(c, (uint32_t)i)) ||
		    (c->split == COLLECT_SPLIT_CPU && i != split))
			continue;
		if (ALLOC_GROW(p->modes, p->nmodes + 1, p->alloc_modes))
			return -PROF_ENOMEM;
		p->modes[p->nmodes++] = row;
	}
	/* Samples of no known CPU, last. */
	for (i = 0; i < PROF_NMODES && c->split != COLLECT_SPLIT_CPU; i++) {
		if (!c->modes_unknown.n[i])
			continue;
		if (ALLOC_GROW(p->modes, p->nmodes + 1, p->alloc_modes))
			return -PROF_ENOMEM;
		p->modes[p->nmodes++] = c->modes_unknown;
		break;
	}
	return 0;
}

int collector_build(struct collector *c, const struct profile *tpl,
		    struct profile ***out)
{
	uint32_t *splits = NULL;
	size_t nsplits = 0, alloc = 0, i, j;
	struct profile **ps;
	int err;

	*out = NULL;
	retry_parked(c, 1);
	if (c->oom)
		return prof_fail(PROF_ENOMEM, "out of memory while collecting");
	if (c->split == COLLECT_SPLIT_NONE) {
		if (ALLOC_GROW(splits, 1, alloc))
			return -PROF_ENOMEM;
		splits[nsplits++] = 0;
	} else {
		for (i = 0; i < c->cap_agg + c->nexpected; i++) {
			uint32_t id;

			if (i < c->cap_agg && !c->agg[i].used)
				continue;
			id = i < c->cap_agg ? c->agg[i].split :
			     c->expected[i - c->cap_agg];
			for (j = 0; j < nsplits; j++)
				if (splits[j] == id)
					break;
			if (j < nsplits)
				continue;
			if (ALLOC_GROW(splits, nsplits + 1, alloc)) {
				free(splits);
				return -PROF_ENOMEM;
			}
			splits[nsplits++] = id;
		}
		if (nsplits > 1)
			qsort(splits, nsplits, sizeof(*splits), cmp_u32);
	}
	ps = calloc(nsplits ? nsplits : 1, sizeof(*ps));
	if (!ps) {
		free(splits);
		return -PROF_ENOMEM;
	}
	for (i = 0; i < nsplits; i++) {
		err = build_one(c, tpl, splits[i], &ps[i]);
		if (err) {
			for (j = 0; j <= i; j++)
				profile_free(ps[j]);
			free(ps);
			free(splits);
			return prof_fail(err, "out of memory building profile");
		}
	}
	free(splits);
	*out = ps;
	return (int)nsplits;
}
