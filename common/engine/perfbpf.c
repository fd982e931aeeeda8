/* SPDX-License-Identifier: MIT */
/*
 * Loading and feeding the BPF program that copies Python frames at the
 * sample (perfbpf.h).  The program's object is built from
 * bpf/sample.bpf.c by clang and linked into the tools
 * (perf_bpf_obj_start..perf_bpf_obj_end, bpf/sample_obj.S).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "perfbpf.h"
#include "bpf/sample_bpf.h"
#include "common/util/bytes.h"
#include "common/util/error.h"

extern const unsigned char perf_bpf_obj_start[], perf_bpf_obj_end[];

struct perf_bpf {
	struct bpf_object *obj;
	int prog_fd, procs_fd, threads_fd, out_fd, wake_fd, deep_fd;
	int config_fd;
	int ncpus;
};

/* libbpf's messages are its own reasons; ours is the one line. */
static int quiet(enum libbpf_print_level level, const char *fmt,
		 va_list ap)
{
	return 0;
}

static int map_fd(struct bpf_object *obj, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, name);

	return m ? bpf_map__fd(m) : -1;
}

/* The initial PID namespace's inode number (PROC_PID_INIT_INO). */
#define INIT_PID_NS_INO 0xeffffffcULL

int perf_bpf_open(struct perf_bpf **out)
{
	int ncpus = libbpf_num_possible_cpus();
	struct stat st;
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "pyframes");
	struct bpf_program *prog;
	struct bpf_map *m;
	struct perf_bpf *b;
	int err;

	*out = NULL;
	/* The program knows threads by the initial namespace's ids (the
	 * kernel's); ours would be others in another namespace, and it
	 * could copy the memory of a process that is not the one meant. */
	if (stat("/proc/self/ns/pid", &st) || st.st_ino != INIT_PID_NS_INO)
		return prof_fail(PROF_EUNAVAIL, "uprofile runs in a PID "
				 "namespace of its own");
	libbpf_set_print(quiet);
	if (ncpus <= 0)
		return prof_fail(PROF_EUNAVAIL, "BPF program: "
				 "cannot count the CPUs");
	b = calloc(1, sizeof(*b));
	if (!b)
		return prof_fail(PROF_ENOMEM, "out of memory");
	b->ncpus = ncpus;
	b->obj = bpf_object__open_mem(perf_bpf_obj_start,
				      (size_t)(perf_bpf_obj_end -
					       perf_bpf_obj_start), &opts);
	if (!b->obj) {
		err = errno;
		free(b);
		return prof_fail(PROF_EUNAVAIL, "BPF program: "
				 "cannot open: %s", strerror(err));
	}
	m = bpf_object__find_map_by_name(b->obj, "out");
	if (m && bpf_map__set_max_entries(m, (uint32_t)ncpus))
		m = NULL;
	if (m)
		m = bpf_object__find_map_by_name(b->obj, "wake");
	if (!m || bpf_map__set_max_entries(m, (uint32_t)ncpus)) {
		perf_bpf_close(b);
		return prof_fail(PROF_EUNAVAIL, "BPF program: "
				 "no output map");
	}
	err = bpf_object__load(b->obj);
	if (err) {
		perf_bpf_close(b);
		return prof_fail(PROF_EUNAVAIL, "BPF program: "
				 "cannot load: %s", strerror(-err));
	}
	prog = bpf_object__find_program_by_name(b->obj, "pyframes");
	b->prog_fd = prog ? bpf_program__fd(prog) : -1;
	b->procs_fd = map_fd(b->obj, "procs");
	b->threads_fd = map_fd(b->obj, "threads");
	b->out_fd = map_fd(b->obj, "out");
	b->wake_fd = map_fd(b->obj, "wake");
	b->deep_fd = map_fd(b->obj, "deep");
	b->config_fd = map_fd(b->obj, "config");
	if (b->prog_fd < 0 || b->procs_fd < 0 ||
	    b->threads_fd < 0 || b->out_fd < 0 || b->wake_fd < 0 ||
	    b->deep_fd < 0 || b->config_fd < 0) {
		perf_bpf_close(b);
		return prof_fail(PROF_EUNAVAIL, "BPF program: "
				 "incomplete object");
	}
	*out = b;
	return 0;
}

void perf_bpf_close(struct perf_bpf *b)
{
	if (!b)
		return;
	bpf_object__close(b->obj);
	free(b);
}

int perf_bpf_attach(struct perf_bpf *b, int fd)
{
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, b->prog_fd))
		return prof_fail(PROF_EUNAVAIL, "cannot attach the BPF "
				 "program: %s", strerror(errno));
	return 0;
}

/* One BPF output event of cpu into the ring of ring_fd, listed in map
 * map_fd; woken: the drainer wakes at each of its records. */
static int output_event(int map_fd, int cpu, int ring_fd,
			uint64_t sample_type, int clockid, int woken, int *fd)
{
	struct perf_event_attr a;
	uint32_t key = (uint32_t)cpu, val;
	long f;

	*fd = -1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.sample_period = 1;
	a.sample_type = sample_type | PERF_SAMPLE_RAW;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = clockid;
	if (woken) {
		a.wakeup_events = 1;
	} else {
		/* The ring's owner wakes the drainer. */
		a.watermark = 1;
		a.wakeup_watermark = 1u << 30;
	}
	f = syscall(SYS_perf_event_open, &a, -1, cpu, -1,
		    PERF_FLAG_FD_CLOEXEC);
	if (f < 0)
		return prof_fail(PROF_EUNAVAIL, "cannot open the BPF "
				 "program's output on CPU %d: %s", cpu,
				 strerror(errno));
	val = (uint32_t)f;
	if (ioctl((int)f, PERF_EVENT_IOC_SET_OUTPUT, ring_fd) ||
	    bpf_map_update_elem(map_fd, &key, &val, BPF_ANY)) {
		int err = errno;

		close((int)f);
		return prof_fail(PROF_EUNAVAIL, "cannot direct the BPF "
				 "program's output on CPU %d: %s", cpu,
				 strerror(err));
	}
	*fd = (int)f;
	return 0;
}

int perf_bpf_output(struct perf_bpf *b, int cpu, int ring_fd,
		  uint64_t sample_type, int clockid, int *fd, int *wake_fd)
{
	int err;

	*fd = *wake_fd = -1;
	if (cpu < 0 || cpu >= b->ncpus)
		return prof_fail(PROF_EUNAVAIL, "CPU %d: no BPF program's "
				 "output", cpu);
	err = output_event(b->out_fd, cpu, ring_fd, sample_type, clockid, 0,
			   fd);
	if (!err)
		err = output_event(b->wake_fd, cpu, ring_fd, sample_type,
				   clockid, 1, wake_fd);
	if (err && *fd >= 0) {
		uint32_t key = (uint32_t)cpu;

		bpf_map_delete_elem(b->out_fd, &key);
		close(*fd);
		*fd = -1;
	}
	return err;
}

int perf_bpf_set_proc(struct perf_bpf *b, uint32_t pid,
		    const struct sbpf_proc *p)
{
	if (!p) {
		bpf_map_delete_elem(b->procs_fd, &pid);
		return 0;
	}
	if (bpf_map_update_elem(b->procs_fd, &pid, p, BPF_ANY))
		return prof_fail(PROF_EUNAVAIL, "BPF program's map: %s",
				 strerror(errno));
	return 0;
}

int perf_bpf_set_thread(struct perf_bpf *b, uint32_t tid,
		      const struct sbpf_thread *th)
{
	if (bpf_map_update_elem(b->threads_fd, &tid, th, BPF_ANY))
		return prof_fail(PROF_EUNAVAIL, "BPF program's map: %s",
				 strerror(errno));
	return 0;
}

int perf_bpf_python(struct perf_bpf *b, int on)
{
	uint32_t key = 0, flags = on ? SBPF_PYTHON : 0;

	if (bpf_map_update_elem(b->config_fd, &key, &flags, BPF_ANY))
		return prof_fail(PROF_EUNAVAIL, "BPF program's configuration: "
				 "%s", strerror(errno));
	return 0;
}

int perf_bpf_set_deep(struct perf_bpf *b, uint32_t pid, uint32_t from,
		    uint32_t len)
{
	struct sbpf_deep d = { from, len };

	if (bpf_map_update_elem(b->deep_fd, &pid, &d, BPF_ANY))
		return prof_fail(PROF_EUNAVAIL, "BPF program's deep stacks: "
				 "%s", strerror(errno));
	return 0;
}

size_t perf_bpf_regions(const uint8_t *rec, size_t len, uint32_t magic,
			struct perf_bpf_region *out, size_t max)
{
	struct bytes b = bytes_of(rec, len);
	uint64_t reclen, addr, n;
	size_t k = 0;

	if (bytes_host32(&b) != magic)
		return 0;
	bytes_skip(&b, 4);			/* tid */
	reclen = bytes_host32(&b);
	bytes_skip(&b, 4);			/* pad */
	if (b.bad || reclen > len)
		return 0;
	b = bytes_of(rec, (size_t)reclen);
	bytes_skip(&b, sizeof(struct sbpf_head));
	while (k < max && bytes_left(&b) >= sizeof(struct sbpf_region)) {
		const uint8_t *data;

		addr = bytes_host64(&b);
		n = bytes_host32(&b);
		bytes_skip(&b, 4);		/* pad */
		data = n <= bytes_left(&b) ? bytes_get(&b, (size_t)n) : NULL;
		if (!data || !n || !addr || addr + n < addr)
			break;
		out[k++] = (struct perf_bpf_region){ addr, (size_t)n, data };
		bytes_skip(&b, (size_t)(((n + 7) & ~(uint64_t)7) - n));
	}
	return k;
}
