/* SPDX-License-Identifier: MIT */
/*
 * fe_main() (frontend.h) and the perf engine's run: start the program or
 * attach, watch signals, -control and --start-after, collect until the
 * end, then write each profile and report it (also -i, report only).
 * The options are parsed in options.c, the statistics resolved into
 * events in resolve.c, the sim engine run in simrun.c (frontend_int.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/util/array.h"
#include "common/collect/collect.h"
#include "common/util/error.h"
#include "frontend_int.h"
#include "common/engine/launch.h"
#include "common/util/outfile.h"
#include "common/util/parse.h"
#include "common/engine/perf.h"
#include "common/engine/privilege.h"
#include "common/profile/profile.h"
#include "formats/report/report.h"
#include "common/engine/sim.h"
#include "common/stats/stats.h"
#include "common/util/sysctl.h"
#include "symbolize/symbolize.h"

#define SUMMARY_ROWS 5

const struct fe_tool *g_tool;

uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void notice(const struct fe_config *c, const char *fmt, ...)
{
	va_list ap;

	if (c->quiet)
		return;
	fprintf(stderr, "%s: ", g_tool->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int fail(int err)
{
	fprintf(stderr, "%s: %s\n", g_tool->name, prof_error(err));
	return FE_EXIT_FAIL;
}

/* Feed the executable mappings listed in a /proc maps file; returns how
 * many there were. */
static int synthesize_from(struct collector *col, pid_t pid, const char *path)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		char perm[8];
		int name_at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &lo, &hi,
			   perm, &off, &name_at) < 4 || perm[2] != 'x')
			continue;
		while (line[name_at] == ' ')
			name_at++;
		line[strcspn(line, "\n")] = '\0';
		collector_mmap(col, (uint32_t)pid, lo, hi - lo, off,
			       line + name_at, NULL, 0, 0);
		n++;
	}
	fclose(f);
	return n;
}

/*
 * Synthesize the mappings of an existing process from /proc.  A process
 * whose main thread has exited (pthread_exit) shows empty maps under its
 * pid: any live thread's view is the same address space.
 */
static void synthesize_maps(struct collector *col, pid_t pid)
{
	char path[96];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (synthesize_from(col, pid, path))
		return;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/maps",
			 (int)pid, e->d_name);
		if (synthesize_from(col, pid, path))
			break;
	}
	closedir(d);
}

static int list_tids(pid_t pid, pid_t **tids, size_t *n)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	size_t alloc = 0;

	*tids = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return prof_fail(PROF_ENOENT, "no process %d", (int)pid);
	while ((e = readdir(d))) {
		long t;

		if (parse_int(e->d_name, 1, INT_MAX, &t))
			continue;
		if (ALLOC_GROW(*tids, *n + 1, alloc)) {
			closedir(d);
			return -PROF_ENOMEM;
		}
		(*tids)[(*n)++] = (pid_t)t;
	}
	closedir(d);
	return 0;
}

/* What -p checks of /proc/PID/stat: comm, state and the kernel's flags. */
struct task_stat {
	char comm[64];
	char state;
	unsigned long flags;
};

#define PF_KTHREAD 0x00200000	/* include/linux/sched.h */

static int read_task_stat(const char *path, struct task_stat *ts)
{
	char line[1024], *lp, *rp;
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(line, sizeof(line), f) != NULL;
	fclose(f);
	/* comm may hold spaces and parentheses: it ends at the last ')'. */
	lp = ok ? strchr(line, '(') : NULL;
	rp = ok ? strrchr(line, ')') : NULL;
	if (!lp || !rp || rp < lp)
		return -1;
	snprintf(ts->comm, sizeof(ts->comm), "%.*s", (int)(rp - lp - 1),
		 lp + 1);
	return sscanf(rp + 1, " %c %*d %*d %*d %*d %*d %lu", &ts->state,
		      &ts->flags) == 2 ? 0 : -1;
}

/* A "Name:" field of /proc/PID/status, or -1. */
static long status_field(pid_t pid, const char *name)
{
	char path[64], line[256];
	size_t len = strlen(name);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':') {
			if (sscanf(line + len + 1, "%ld", &v) != 1)
				v = -1;
			break;
		}
	fclose(f);
	return v;
}

/* A thread of pid that has not exited, or 0 when all have (a zombie
 * waiting for its parent): a group whose leader alone exited still runs,
 * and the kernel attaches to it through a live thread only. */
static pid_t live_thread(pid_t pid)
{
	char path[320];
	struct task_stat ts;
	struct dirent *e;
	DIR *d;
	long tid = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while (!tid && (e = readdir(d))) {
		if (parse_int(e->d_name, 1, INT_MAX, &tid))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/stat",
			 (int)pid, tid);
		if (read_task_stat(path, &ts) || ts.state == 'Z' ||
		    ts.state == 'X')
			tid = 0;
	}
	closedir(d);
	return (pid_t)tid;
}

/* getpwuid's buffer is reused by the next call: copy the name. */
static void user_name(long uid, char *buf, size_t len)
{
	struct passwd *pw = uid >= 0 ? getpwuid((uid_t)uid) : NULL;

	snprintf(buf, len, "%s", pw ? pw->pw_name : "?");
}

/*
 * Can -p PID give samples?  A kernel thread has no user mode, our own
 * process would sample the profiler, a zombie runs no more, and the kernel
 * refuses another user's process: each would otherwise end in 0 samples
 * and status 0, or in a bare EACCES.  kprofile -p only waits for PID to
 * exit, so it needs PID alive and nothing more.  modes: the run's; the
 * kernel is asked (probe) unless probe is 0 (--dry-run opens nothing).
 */
static int check_attach(pid_t pid, unsigned modes, int probe)
{
	char path[64];
	struct task_stat ts;
	pid_t tid;
	long uid;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_task_stat(path, &ts))
		return prof_fail(PROF_ENOENT, "no process %d", (int)pid);
	tid = live_thread(pid);
	if (!tid)
		return prof_fail(PROF_ENOENT, "cannot attach to process %d "
				 "(%s): it has exited (zombie)", (int)pid,
				 ts.comm);
	if (g_tool->scope != FE_SCOPE_TASKS)
		return 0;
	if (ts.flags & PF_KTHREAD)
		return prof_fail(PROF_EINVAL, "cannot attach to process %d "
				 "(%s): it is a kernel thread: use kprofile",
				 (int)pid, ts.comm);
	if (status_field(pid, "Tgid") == (long)getpid())
		return prof_fail(PROF_EINVAL, "cannot attach to process %d: "
				 "it is %s itself", (int)pid, g_tool->name);
	err = probe ? -perf_probe_target(tid, -1, modes) : 0;
	if (err == ESRCH)
		return prof_fail(PROF_ENOENT, "no process %d", (int)pid);
	if ((err != EACCES && err != EPERM) ||
	    perf_probe_target(0, -1, modes))
		return 0;	/* no refusal, or not this process's own */
	uid = status_field(pid, "Uid");
	if (uid >= 0 && uid != (long)getuid()) {
		char them[64], us[64];

		user_name(uid, them, sizeof(them));
		user_name((long)getuid(), us, sizeof(us));
		return prof_fail(PROF_EPERM, "cannot attach to process %d "
				 "(%s): permission denied: it runs as user "
				 "'%s' (uid %ld), %s as '%s' (uid %ld): run %s "
				 "as that user or as root", (int)pid, ts.comm,
				 them, uid, g_tool->name, us, (long)getuid(),
				 g_tool->name);
	}
	return prof_fail(PROF_EPERM, "cannot attach to process %d (%s): "
			 "permission denied: the kernel refuses this user "
			 "ptrace access to it (a program that changed its "
			 "credentials, or a security policy): run %s as root",
			 (int)pid, ts.comm, g_tool->name);
}

/*
 * A frequency above kernel.perf_event_max_sample_rate makes
 * perf_event_open fail with a bare EINVAL.  An -F the user gave is
 * refused with the limit and how to raise it; the default frequency is
 * lowered to the limit with a notice, as perf does: the kernel lowers the
 * limit by itself when sampling interrupts take too long (a busy VM).
 */
static int check_sample_rate(struct run *r)
{
	uint64_t hz = 0;
	long max;
	size_t i;

	for (i = 0; i < r->nstats; i++)
		if (!r->specs[i].counting && !r->specs[i].period &&
		    r->specs[i].freq > hz)
			hz = r->specs[i].freq;
	if (!hz || sysctl_read_long("perf_event_max_sample_rate", &max) ||
	    max <= 0 || hz <= (uint64_t)max)
		return 0;
	if (r->cfg->freq)
		return prof_fail(PROF_EINVAL, "-F %" PRIu64 " is above this "
				 "kernel's limit of %ld samples per second "
				 "(kernel.perf_event_max_sample_rate): give -F "
				 "%ld or less, or raise the limit with 'sysctl "
				 "kernel.perf_event_max_sample_rate=%" PRIu64
				 "'", hz, max, max, hz);
	for (i = 0; i < r->nstats; i++)
		if (!r->specs[i].counting && !r->specs[i].period &&
		    r->specs[i].freq > (uint64_t)max)
			r->specs[i].freq = (uint64_t)max;
	notice(r->cfg, "sampling at %ld per second, not the default %" PRIu64
	       ": this kernel's limit (kernel.perf_event_max_sample_rate) is "
	       "%ld", max, hz, max);
	return 0;
}

static void synthesize_all(struct collector *col)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		long pid;

		if (!parse_int(e->d_name, 1, INT_MAX, &pid))
			synthesize_maps(col, (pid_t)pid);
	}
	closedir(d);
}

/* File name for one profile of a run: per process (PID >= 0) or per CPU
 * (CPU >= 0) when the run is SPLIT. */
static char *profile_name(const struct fe_config *c, int pid, int cpu,
			  int split)
{
	const char *base = c->output ? c->output : g_tool->default_file;
	char *name = NULL, *full = NULL;
	size_t n = strlen(base);
	int r;

	if (split && pid >= 0) {
		/* umon.out -> umon.1234.out, other names get .1234 */
		if (n > 4 && !strcmp(base + n - 4, ".out"))
			r = asprintf(&name, "%.*s.%d.out", (int)(n - 4), base,
				     pid);
		else
			r = asprintf(&name, "%s.%d", base, pid);
	} else if (split && cpu >= 0) {
		r = asprintf(&name, "%s.%d", base, cpu);
	} else {
		r = asprintf(&name, "%s", base);
	}
	if (r < 0)
		return NULL;
	if (!c->dirname || base[0] == '/')
		return name;
	r = asprintf(&full, "%s/%s", c->dirname, name);
	free(name);
	return r < 0 ? NULL : full;
}

static char *profile_path(const struct fe_config *c, const struct profile *p,
			  int split)
{
	return profile_name(c, p->pid, p->cpu, split);
}

static int cmp_ksym(const void *a, const void *b)
{
	const struct sym_ksym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Put the kernel symbols that cover the profile's kernel addresses into
 * the profile: with KASLR the addresses are only meaningful with this
 * boot's symbols.  _text is kept too, for -k vmlinux's relocation.
 */
static int embed_kernel_symbols(struct profile *p, struct symbolizer *sym)
{
	struct sym_ksym *v = NULL, k;
	size_t n = 0, alloc = 0, i;
	int err = 0;

	for (i = 0; i <= p->ncounts; i++) {
		int r;

		if (i < p->ncounts) {
			if (p->objects[p->counts[i].obj].kind != PROF_OBJ_KERNEL)
				continue;
			r = sym_kernel_symbol(sym, p->counts[i].offset, &k);
		} else {
			if (!n)
				break;
			r = sym_kernel_symbol_by_name(sym, "_text", &k);
		}
		if (r < 0)
			break;	/* hidden or unreadable: rows show addresses */
		if (r > 0)
			continue;
		if (n && v[n - 1].start == k.start)
			continue;
		if (ALLOC_GROW(v, n + 1, alloc)) {
			err = -PROF_ENOMEM;
			goto out;
		}
		v[n++] = k;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_ksym);
	for (i = 0; i < n; i++) {
		struct prof_ksym pk = {
			.start = v[i].start, .end = v[i].end,
			.name = (char *)v[i].name, .module = (char *)v[i].module,
		};

		if (i && v[i].start == v[i - 1].start)
			continue;
		if (profile_add_ksym(p, &pk) < 0) {
			err = -PROF_ENOMEM;
			break;
		}
	}
out:
	free(v);
	return err;
}

/* A symbolizer for reporting p: with its own kernel symbols if it has. */
static struct symbolizer *report_symbolizer(const struct fe_config *c,
					    const struct profile *p)
{
	struct sym_config sc = { .vmlinux = c->vmlinux };
	struct symbolizer *sym = symbolizer_new(&sc);
	struct sym_ksym *v;
	size_t i;

	if (!sym || !p->nksyms)
		return sym;
	v = calloc(p->nksyms, sizeof(*v));
	if (!v) {
		symbolizer_free(sym);
		return NULL;
	}
	for (i = 0; i < p->nksyms; i++) {
		v[i].start = p->ksyms[i].start;
		v[i].end = p->ksyms[i].end;
		v[i].name = p->ksyms[i].name;
		v[i].module = p->ksyms[i].module;
	}
	if (sym_set_kernel_symbols(sym, v, p->nksyms) == SYM_ENOMEM) {
		symbolizer_free(sym);
		sym = NULL;
	}
	free(v);
	return sym;
}

/* A counting profile: totals and ratios, no rows.  The summary after a
 * run is the whole text report: it is a few lines. */
static int show_counts(const struct fe_config *c, const struct profile *p,
		       const char *file, int summary_only, FILE *out)
{
	struct report_counts *rc;
	int err = report_counts_build(p, file, &rc);

	if (err)
		return err;
	if (c->row_options && !summary_only)
		fprintf(stderr, "%s: note: '%s' is a counting profile: it "
			"has no rows, so row options are ignored\n",
			g_tool->name, file ? file : "");
	if (c->json && !summary_only)
		err = report_counts_json(out, rc);
	else
		err = report_counts_text(out, rc);
	if (!err && fflush(out))
		err = prof_fail(PROF_EIO, "cannot write report: %s",
				strerror(errno));
	report_counts_free(rc);
	return err;
}

static int show_report(const struct fe_config *c, const struct profile *p,
		       const char *file, int summary_only, FILE *out)
{
	struct symbolizer *sym = report_symbolizer(c, p);
	struct report_options ro = {
		.view = (enum report_view)c->view,
		.quit_rows = c->quit_rows,
		.quit_percent = c->quit_percent,
		.only = c->only, .nonly = c->nonly,
		.exclude = c->exclude, .nexclude = c->nexclude,
		.numbers = c->numbers,
		.file = file,
		.stride = c->stride,
		.average = c->average,
	};
	struct report *r;
	int err;

	if (report_is_counting(p)) {
		symbolizer_free(sym);
		return show_counts(c, p, file, summary_only, out);
	}
	if (!sym)
		return prof_fail(PROF_ENOMEM, "out of memory");
	if (summary_only) {
		ro.view = REPORT_PROCEDURES;
		ro.nonly = ro.nexclude = 0;
		ro.quit_rows = ro.quit_percent = 0;
		ro.stride = -1;
		ro.average = 0;
	}
	err = report_build(p, sym, &ro, &r);
	if (err) {
		symbolizer_free(sym);
		return err;
	}
	if (summary_only)
		err = report_summary(out, r, SUMMARY_ROWS);
	else if (c->json)
		err = report_json(out, r);
	else
		err = report_text(out, r);
	if (!err && fflush(out))
		err = prof_fail(PROF_EIO, "cannot write report: %s",
				strerror(errno));
	report_free(r);
	symbolizer_free(sym);
	return err;
}

static int report_only(const struct fe_config *c)
{
	struct profile *p;
	int err = profile_read(c->input, &p);

	if (err)
		return fail(err);
	err = show_report(c, p, c->input, 0, stdout);
	profile_free(p);
	return err ? fail(err) : 0;
}

/* Signals become readable events, so the loop below decides what each
 * means: the terminal's Ctrl-C already reached the program. */
int setup_signals(struct run *r)
{
	sigset_t set;
	struct sigaction old;

	sigaction(SIGINT, NULL, &old);
	r->sigint_ignored = old.sa_handler == SIG_IGN;
	sigemptyset(&set);
	if (!r->sigint_ignored)
		sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	if (r->cfg->triggered || r->cfg->control) {
		sigaddset(&set, SIGUSR1);
		sigaddset(&set, SIGUSR2);
	}
	/* Blocked before the trigger is opened: its first overflow must
	 * not find the default action (termination). */
	if (r->have_trigger)
		sigaddset(&set, r->trigger.signo);
	if (sigprocmask(SIG_BLOCK, &set, &r->old_mask))
		return prof_fail(PROF_EIO, "cannot block signals: %s",
				 strerror(errno));
	r->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r->sigfd < 0)
		return prof_fail(PROF_EIO, "cannot watch signals: %s",
				 strerror(errno));
	return 0;
}

static int pin_to_current_cpu(int *cpu)
{
	cpu_set_t set;

	*cpu = sched_getcpu();
	if (*cpu < 0)
		return prof_fail(PROF_EIO, "cannot tell the current CPU: %s",
				 strerror(errno));
	CPU_ZERO(&set);
	CPU_SET(*cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return prof_fail(PROF_EIO, "cannot pin to CPU %d: %s", *cpu,
				 strerror(errno));
	return 0;
}

/* -ra: the kernel utility routines whose samples go to their callers. */
static int setup_callers(struct run *r)
{
	struct fe_config *c = r->cfg;
	struct sym_ksym *v = NULL;
	struct collect_range *rg;
	int n, i, err;

	if (!c->nra)
		return 0;
	n = sym_kernel_matching(r->sym, c->ra, c->nra, &v);
	if (n < 0)
		return prof_fail(PROF_EPERM, "-ra needs the kernel's symbols: %s",
				 sym_strerror(n));
	if (n == 0) {
		free(v);
		return prof_fail(PROF_EINVAL, "-ra: no kernel routine matches "
				 "the list ('%s'%s)", c->ra[0],
				 c->nra > 1 ? ", ..." : "");
	}
	rg = calloc((size_t)n, sizeof(*rg));
	if (!rg) {
		free(v);
		return -PROF_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		rg[i].start = v[i].start;
		rg[i].end = v[i].end;
	}
	err = collector_set_caller_ranges(r->col, rg, (size_t)n);
	free(rg);
	free(v);
	for (i = 0; i < (int)r->nstats; i++)
		r->specs[i].callchain = 1;
	if (c->verbose)
		notice(c, "-ra: %d kernel routines charge their samples to "
		       "their callers", n);
	return err;
}

/*
 * Collect until the program exits, the duration passes, or a signal says
 * stop.  Returns the program's status (or 0), or a negative error.
 */
static void set_sampling(struct run *r, int on)
{
	int err;

	if (r->sampling == on)
		return;
	err = on ? perf_session_enable(r->sess) :
		   perf_session_disable(r->sess);
	if (err) {
		fprintf(stderr, "%s: %s\n", g_tool->name, prof_error(err));
		return;
	}
	r->sampling = on;
	if (r->cfg->verbose)
		notice(r->cfg, "sampling %s", on ? "enabled" : "disabled");
}

/* Commands on the control FIFO, one per line. */
static void read_control(struct run *r)
{
	char buf[256];
	ssize_t n;

	while ((n = read(r->control_fd, buf, sizeof(buf) - 1)) > 0) {
		char *save = NULL, *line;

		buf[n] = '\0';
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			line[strcspn(line, "\r ")] = '\0';
			if (!strcmp(line, "enable"))
				set_sampling(r, 1);
			else if (!strcmp(line, "disable"))
				set_sampling(r, 0);
			else if (*line)
				fprintf(stderr, "%s: unknown control command "
					"'%s' (use enable or disable)\n",
					g_tool->name, line);
		}
	}
}

static int open_control(struct run *r)
{
	struct stat st;
	const char *path = r->cfg->control;

	if (stat(path, &st) == 0) {
		if (!S_ISFIFO(st.st_mode))
			return prof_fail(PROF_EINVAL, "control '%s' is not a FIFO",
					 path);
	} else if (errno != ENOENT || mkfifo(path, 0600)) {
		return prof_fail(PROF_EIO, "cannot create control FIFO '%s': %s",
				 path, strerror(errno));
	} else {
		r->control_made = 1;
	}
	r->control_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	/* Our own writer keeps the FIFO from reporting EOF between
	 * commands. */
	if (r->control_fd >= 0)
		r->control_keep_fd = open(path, O_WRONLY | O_NONBLOCK |
					  O_CLOEXEC);
	if (r->control_fd < 0 || r->control_keep_fd < 0)
		return prof_fail(PROF_EIO, "cannot open control FIFO '%s': %s",
				 path, strerror(errno));
	return 0;
}

/*
 * --start-after: A's N-th event raised the trigger's signal.  The
 * hand-over recorded is from reading the signal to every statistic
 * enabled; the kernel's part before (overflow to signal read) is
 * documented in README.md.
 */
static void start_after_fired(struct run *r)
{
	uint64_t t1 = now_ns(CLOCK_MONOTONIC), t2;
	int err = perf_session_cascade(r->sess);

	t2 = now_ns(CLOCK_MONOTONIC);
	if (err < 0) {
		fprintf(stderr, "%s: %s\n", g_tool->name, prof_error(err));
		return;
	}
	if (!err)
		return;
	r->fired_ns = (int64_t)(t1 - r->t0);
	r->handover_ns = t2 - t1;
	if (r->cfg->verbose)
		notice(r->cfg, "'%s' reached %llu after %.3f s: %s started "
		       "(hand-over %.1f us)", r->cfg->start_after_stat,
		       r->cfg->start_after_n, (double)r->fired_ns / 1e9,
		       r->cfg->count ? "counting" : "sampling",
		       (double)r->handover_ns / 1e3);
}

static int collect(struct run *r, int *status)
{
	struct fe_config *c = r->cfg;
	struct pollfd extra[3];
	size_t nextra = 0;
	uint64_t deadline = 0;
	int child_extra = -1, attach_pidfd = -1, control_extra = -1;
	int stop = 0;

	*status = 0;
	extra[nextra].fd = r->sigfd;
	extra[nextra++].events = POLLIN;
	if (r->control_fd >= 0) {
		control_extra = (int)nextra;
		extra[nextra].fd = r->control_fd;
		extra[nextra++].events = POLLIN;
	}
	if (r->have_child && r->child.pidfd >= 0) {
		child_extra = (int)nextra;
		extra[nextra].fd = r->child.pidfd;
		extra[nextra++].events = POLLIN;
	} else if (c->attach_pid) {
		attach_pidfd = launch_pidfd((pid_t)c->attach_pid);
		if (attach_pidfd >= 0) {
			child_extra = (int)nextra;
			extra[nextra].fd = attach_pidfd;
			extra[nextra++].events = POLLIN;
		}
	}
	if (c->duration > 0)
		deadline = now_ns(CLOCK_MONOTONIC) +
			   (uint64_t)(c->duration * 1e9);
	while (!stop) {
		int timeout = 100;
		struct signalfd_siginfo si;
		int err;

		if (deadline) {
			uint64_t t = now_ns(CLOCK_MONOTONIC);

			if (t >= deadline)
				break;
			if ((deadline - t) / 1000000 < 100)
				timeout = (int)((deadline - t) / 1000000) + 1;
		}
		err = perf_session_poll(r->sess, timeout, extra, nextra);
		if (err)
			return err;
		if (control_extra >= 0 && extra[control_extra].revents)
			read_control(r);
		while (read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			if (r->have_trigger &&
			    (int)si.ssi_signo == r->trigger.signo) {
				start_after_fired(r);
			} else if (si.ssi_signo == SIGUSR1 ||
				   si.ssi_signo == SIGUSR2) {
				set_sampling(r, si.ssi_signo == SIGUSR1);
			} else if (r->have_child) {
				/* The terminal sent Ctrl-C to the program too;
				 * a signal sent to us alone is passed on. */
				if (si.ssi_code == SI_USER ||
				    si.ssi_code == SI_QUEUE)
					kill(r->child.pid, (int)si.ssi_signo);
			} else {
				stop = 1;
			}
		}
		if (r->have_child) {
			if ((child_extra >= 0 && extra[child_extra].revents) ||
			    child_extra < 0) {
				if (launch_poll(&r->child, status))
					break;
			}
		} else if (c->attach_pid) {
			if ((child_extra >= 0 && extra[child_extra].revents) ||
			    (child_extra < 0 && kill((pid_t)c->attach_pid, 0) &&
			     errno == ESRCH))
				break;
		}
	}
	if (attach_pidfd >= 0)
		close(attach_pidfd);
	return 0;
}

/* The profile every run starts from: tool, host and times (started at
 * t0 on the monotonic clock, t0_wall on the wall clock). */
struct profile *new_template(uint64_t t0, uint64_t t0_wall)
{
	struct profile *tpl = profile_new();

	if (!tpl)
		return NULL;
	tpl->tool = strdup(g_tool->name);
	if (!tpl->tool) {
		profile_free(tpl);
		return NULL;
	}
	profile_identify_host(tpl);
	tpl->start_time_ns = t0_wall;
	tpl->duration_ns = now_ns(CLOCK_MONOTONIC) - t0;
	return tpl;
}

int write_and_report(struct run *r, struct profile *tpl)
{
	struct fe_config *c = r->cfg;
	struct profile **ps = NULL;
	int n, i, err = 0, split;
	char *first = NULL;
	uint64_t samples = 0, lost = 0;

	n = collector_build(r->col, tpl, &ps);
	if (n < 0)
		return n;
	if (c->pixie) {
		err = add_pixie(r, tpl, ps, n);
		if (err)
			goto out;
	}
	split = c->pids || c->cpus == FE_CPUS_EACH;
	/* -one: the file holds a single CPU; say which. */
	if (c->cpus == FE_CPUS_ONE && n == 1)
		ps[0]->cpu = r->one_cpu;
	for (i = 0; i < n; i++) {
		char *path;

		if (r->sym) {
			err = embed_kernel_symbols(ps[i], r->sym);
			if (err)
				goto out;
		}
		path = profile_path(c, ps[i], split);
		if (!path) {
			err = -PROF_ENOMEM;
			goto out;
		}
		err = profile_write(ps[i], path);
		if (err) {
			free(path);
			goto out;
		}
		if (!first)
			first = path;
		else
			free(path);
	}
	for (i = 0; i < (int)r->nstats; i++) {
		samples += collector_samples(r->col, (uint32_t)i);
		lost += collector_lost_total(r->col, (uint32_t)i);
	}
	if (!c->quiet && n > 0 && !c->display) {
		/* A single merged profile is summarized; split runs list
		 * their files only. */
		if (n == 1)
			show_report(c, ps[0], first, 1, stderr);
	}
	if (c->display) {
		/*
		 * stdout belongs to the program that just ran (it may be
		 * redirected to its data): the report goes to stderr, or to
		 * -report-file, written whole or not at all.
		 */
		FILE *out = stderr;
		struct outfile rf;

		if (c->report_file) {
			err = outfile_open(&rf, c->report_file);
			if (err)
				goto out;
			out = outfile_stream(&rf);
			if (!out) {
				err = -PROF_ENOMEM;
				outfile_abort(&rf);
				goto out;
			}
		}
		for (i = 0; i < n && !err; i++) {
			char *path = profile_path(c, ps[i], split);

			err = show_report(c, ps[i], path, 0, out);
			free(path);
		}
		if (c->report_file) {
			if (err)
				outfile_abort(&rf);
			else
				err = outfile_commit(&rf);
		}
	}
	if (!c->quiet) {
		char names[256];
		size_t k, used = 0;

		names[0] = '\0';
		for (k = 0; k < r->nstats; k++) {
			int w = snprintf(names + used, sizeof(names) - used,
					 "%s%s", k ? ", " : "",
					 tpl->stats[k].name);
			if (w < 0 || (size_t)w >= sizeof(names) - used)
				break;
			used += (size_t)w;
		}
		if (c->count)
			notice(c, "counted %s; profile written to %s", names,
			       first);
		else if (c->engine == FE_ENGINE_SIM)
			notice(c, "%" PRIu64 " events counted (%s, simulated "
			       "by valgrind); %d profile%s written (%s%s)",
			       samples, names, n, n == 1 ? "" : "s",
			       first ? first : "none", n > 1 ? ", ..." : "");
		else if (n == 1)
			notice(c, "%" PRIu64 " samples (%s), %" PRIu64 " lost; "
			       "profile written to %s", samples, names, lost,
			       first);
		else
			notice(c, "%" PRIu64 " samples (%s), %" PRIu64 " lost; "
			       "%d profiles written (%s%s)", samples, names,
			       lost, n, first ? first : "none",
			       n > 1 ? ", ..." : "");
		if (c->start_after && r->fired_ns < 0)
			notice(c, "'%s' never occurred %llu times: nothing "
			       "was %s", c->start_after_stat,
			       c->start_after_n,
			       c->count ? "counted" : "sampled");
		if (lost)
			notice(c, "the kernel dropped %" PRIu64 " samples: "
			       "lower the rate with -F", lost);
	}
out:
	free(first);
	for (i = 0; i < n; i++)
		profile_free(ps[i]);
	free(ps);
	return err;
}

/* The kernel's ceiling for pid_max (PID_MAX_LIMIT on 64-bit): no pid has
 * more digits. */
#define PID_LONGEST 4194304

/*
 * Every file a run writes must be writable before anything runs: finding
 * out after a long run, with the program's status lost, is the worst time.
 * The pids and CPUs that name the files of a split run are not known yet:
 * the longest such name is checked.
 */
static int check_outputs(const struct fe_config *c)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int split = c->pids || c->cpus == FE_CPUS_EACH;
	char *path;
	int err;

	path = profile_name(c, c->pids ? PID_LONGEST : -1,
			    c->cpus == FE_CPUS_EACH && ncpu > 0 ?
			    (int)(ncpu - 1) : -1, split);
	if (!path)
		return prof_fail(PROF_ENOMEM, "out of memory");
	err = outfile_check(path);
	free(path);
	if (err && split) {
		char *why = strdup(prof_error(err));

		/* The name with the made-up pid or CPU needs saying. */
		if (why) {
			err = prof_fail(PROF_EIO, "%s (the longest per-%s "
					"file name)", why,
					c->pids ? "process" : "CPU");
			free(why);
		}
	}
	if (!err && c->report_file)
		err = outfile_check(c->report_file);
	return err;
}

static int run_collection(struct fe_config *c)
{
	struct run r = { .cfg = c, .sigfd = -1, .control_fd = -1,
			 .control_keep_fd = -1, .fired_ns = -1 };
	struct perf_target t = { 0 };
	struct profile *tpl = NULL;
	pid_t *tids = NULL;
	size_t ntids = 0, i;
	char *path = NULL;
	int one_cpu = -1, status = 0, err, code = FE_EXIT_FAIL;
	uint64_t t0, t0_wall;
	enum collect_split split = c->pids ? COLLECT_SPLIT_PID :
				   c->cpus == FE_CPUS_EACH ? COLLECT_SPLIT_CPU :
				   COLLECT_SPLIT_NONE;

	if (c->cmd) {
		err = launch_find(c->cmd[0], &path);
		if (err) {
			code = err == -PROF_ENOENT ? FE_EXIT_NOTFOUND :
			       err == -PROF_ENOEXEC ? FE_EXIT_NOEXEC :
			       FE_EXIT_FAIL;
			goto fail;
		}
	}
	if (!c->dry_run) {
		err = check_outputs(c);
		if (err)
			goto fail;
	}
	if (c->engine == FE_ENGINE_SIM) {
		code = run_sim(c, path);
		free(path);
		return code;
	}
	if (c->pixie && !c->dry_run) {
		char *vg = NULL;

		/* Not after a long sampled run. */
		err = sim_find_valgrind(&vg);
		free(vg);
		if (err)
			goto fail;
	}
	r.path = path;
	if (!c->dry_run) {
		unsigned m = g_tool->default_modes | c->add_modes;
		struct priv_need need = {
			.system_wide = g_tool->scope == FE_SCOPE_SYSTEM,
			.kernel = !!(m & STAT_MODE_KERNEL),
			.kernel_symbols = !!(m & STAT_MODE_KERNEL),
		};

		err = priv_check(&need);
		if (err)
			goto fail;
	}
	if (c->attach_pid) {
		err = check_attach((pid_t)c->attach_pid,
				   g_tool->default_modes | c->add_modes,
				   !c->dry_run);
		if (err)
			goto fail;
	}
	err = resolve_stats(&r);
	if (err)
		goto fail;
	if (!c->dry_run) {
		err = check_sample_rate(&r);
		if (err)
			goto fail;
	}
	if (c->cpus == FE_CPUS_ONE) {
		err = pin_to_current_cpu(&one_cpu);
		if (err)
			goto fail;
		r.one_cpu = one_cpu;
		t.cpus = &one_cpu;
		t.ncpus = 1;
	}
	r.col = collector_new(split, r.nstats);
	if (!r.col) {
		err = prof_fail(PROF_ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < r.nstats; i++)
		collector_set_modes(r.col, (uint32_t)i, r.choice[i].modes);
	if (c->cpus == FE_CPUS_ONE) {
		err = collector_add_cpu(r.col, (uint32_t)one_cpu);
		if (err)
			goto fail;
	} else {
		/* Every profiled CPU gets a histogram row, and with -each a
		 * file, sampled or not. */
		int *cpus = NULL;
		size_t ncpus = 0, k;

		err = perf_online_cpus(&cpus, &ncpus);
		for (k = 0; !err && k < ncpus; k++) {
			err = collector_add_cpu(r.col, (uint32_t)cpus[k]);
			if (!err && c->cpus == FE_CPUS_EACH)
				err = collector_expect_split(r.col,
							     (uint32_t)cpus[k]);
		}
		free(cpus);
		if (err)
			goto fail;
	}
	for (i = 0; i < r.nstats; i++)
		if (r.choice[i].modes & STAT_MODE_KERNEL)
			break;
	/* Kernel symbols name samples; counting has none. */
	if (i < r.nstats && !c->count) {
		r.sym = symbolizer_new(NULL);
		if (!r.sym) {
			err = prof_fail(PROF_ENOMEM, "out of memory");
			goto fail;
		}
		err = setup_callers(&r);
		if (err)
			goto fail;
	}
	err = setup_signals(&r);
	if (err)
		goto fail;
	if (c->control) {
		err = open_control(&r);
		if (err)
			goto fail;
	}
	t.triggered = c->triggered;
	if (g_tool->scope == FE_SCOPE_SYSTEM) {
		t.kind = PERF_TARGET_CPUS;
		/* User-mode rows need every process's maps. */
		t.track = !c->count &&
			  !!((g_tool->default_modes | c->add_modes) &
			     STAT_MODE_USER);
		if (t.track)
			synthesize_all(r.col);
	} else if (c->attach_pid) {
		err = list_tids((pid_t)c->attach_pid, &tids, &ntids);
		if (err)
			goto fail;
		synthesize_maps(r.col, (pid_t)c->attach_pid);
		t.kind = PERF_TARGET_TASKS;
		t.tids = tids;
		t.ntids = ntids;
		t.track = !c->count;
	}
	/* Counting needs no maps: there are no samples to place. */
	if (c->count)
		t.track = 0;
	if (r.have_trigger)
		t.trigger = &r.trigger;
	if (c->dry_run) {
		if (c->cmd && g_tool->scope == FE_SCOPE_TASKS) {
			t.kind = PERF_TARGET_TASKS;
			t.enable_on_exec = 1;
			t.track = !c->count;
		}
		err = perf_describe(stdout, r.specs, r.nstats, &t);
		if (err)
			goto fail;
		code = fflush(stdout) ? FE_EXIT_FAIL : 0;
		goto out;
	}
	if (c->cmd) {
		err = launch_start(&r.child, path, c->cmd);
		if (err)
			goto fail;
		r.have_child = 1;
		if (g_tool->scope == FE_SCOPE_TASKS) {
			t.kind = PERF_TARGET_TASKS;
			t.tids = &r.child.pid;
			t.ntids = 1;
			t.enable_on_exec = 1;
			t.track = !c->count;
		}
	}
	if (c->verbose) {
		for (i = 0; i < r.nstats; i++)
			if (c->count)
				notice(c, "counting %s (type %u, config %#"
				       PRIx64 ") in %s mode%s",
				       r.choice[i].def->name, r.specs[i].type,
				       r.specs[i].config,
				       stat_modes_text(r.choice[i].modes),
				       r.specs[i].group ? ", grouped" : "");
			else
				notice(c, "sampling %s (type %u, config %#"
				       PRIx64 ") in %s mode, %s %" PRIu64,
				       r.choice[i].def->name,
				       r.specs[i].type, r.specs[i].config,
				       stat_modes_text(r.choice[i].modes),
				       r.specs[i].period ? "every" : "at",
				       r.specs[i].period ? r.specs[i].period :
				       r.specs[i].freq);
		if (c->cmd)
			notice(c, "running %s and its descendants", path);
		else if (c->attach_pid)
			notice(c, "attaching to process %ld (%zu threads)",
			       c->attach_pid, ntids);
		else
			notice(c, "profiling all CPUs until SIGTERM%s",
			       r.sigint_ignored ? "" : " or Ctrl-C");
	}
	err = perf_session_open(&r.sess, r.specs, r.nstats, &t, r.col);
	if (err) {
		if (r.have_child) {
			kill(r.child.pid, SIGKILL);
			launch_wait(&r.child);
			r.have_child = 0;
		}
		goto fail;
	}
	t0 = now_ns(CLOCK_MONOTONIC);
	t0_wall = now_ns(CLOCK_REALTIME);
	r.t0 = t0;
	if (c->triggered) {
		if (c->verbose)
			notice(c, "triggered mode: sampling starts on SIGUSR1%s",
			       c->control ? " or 'enable' on the control FIFO" :
			       "");
	} else if (!t.enable_on_exec) {
		err = perf_session_enable(r.sess);
		if (err)
			goto fail_child;
		r.sampling = 1;
	} else {
		r.sampling = 1;
	}
	if (r.have_child) {
		err = launch_release(&r.child, c->cmd[0]);
		if (err) {
			status = launch_wait(&r.child);
			r.have_child = 0;
			code = err == -PROF_ENOENT ? FE_EXIT_NOTFOUND :
			       FE_EXIT_NOEXEC;
			goto fail;
		}
	}
	err = collect(&r, &status);
	if (err)
		goto fail_child;
	perf_session_disable(r.sess);
	perf_session_drain(r.sess);

	tpl = new_template(t0, t0_wall);
	if (!tpl) {
		err = -PROF_ENOMEM;
		goto fail;
	}
	tpl->exit_status = r.have_child ? status : -1;
	if (c->nra) {
		size_t len = 1;

		for (i = 0; i < c->nra; i++)
			len += strlen(c->ra[i]) + 1;
		tpl->ra_routines = calloc(1, len);
		if (!tpl->ra_routines) {
			err = -PROF_ENOMEM;
			goto fail;
		}
		for (i = 0; i < c->nra; i++) {
			if (i)
				strcat(tpl->ra_routines, ",");
			strcat(tpl->ra_routines, c->ra[i]);
		}
		tpl->ra_moved = collector_moved(r.col);
	}
	if (c->cmd)
		profile_set_argv(tpl, c->ncmd, c->cmd);
	else if (c->attach_pid) {
		char pidtxt[32];
		char *av[] = { pidtxt, NULL };

		snprintf(pidtxt, sizeof(pidtxt), "pid:%ld", c->attach_pid);
		profile_set_argv(tpl, 1, av);
	}
	for (i = 0; i < r.nstats; i++) {
		struct perf_totals tot;
		struct prof_stat s = {
			.name = (char *)r.choice[i].def->name,
			.requested = r.choice[i].requested,
			.type = r.specs[i].type,
			.modes = r.choice[i].modes,
			.flags = (r.choice[i].substitute ?
				  PROF_STAT_SUBSTITUTE : 0) |
				 (r.specs[i].pm.pmu ? PROF_STAT_PROFILEME : 0) |
				 (c->count ? PROF_STAT_COUNTING : 0),
			.config = r.specs[i].config,
			.period = r.specs[i].period,
			.freq = r.specs[i].freq,
		};

		perf_session_totals(r.sess, i, &tot);
		s.value = tot.value;
		s.time_enabled = tot.time_enabled;
		s.time_running = tot.time_running;
		if (profile_add_stat(tpl, &s) < 0) {
			err = -PROF_ENOMEM;
			goto fail;
		}
	}
	if (c->verbose && perf_session_pm_dropped(r.sess))
		notice(c, "%" PRIu64 " instruction samples dropped (no valid "
		       "instruction address, or malformed)",
		       perf_session_pm_dropped(r.sess));
	/* Ratios asked for come last: no event, no counts of their own;
	 * reports compute them from their inputs. */
	for (i = 0; i < r.nderived; i++) {
		struct prof_stat s = {
			.name = r.derived[i].name,
			.requested = r.derived[i].requested,
			.modes = r.derived[i].x == SIZE_MAX ? STAT_MODE_USER :
				 r.choice[r.derived[i].x].modes,
			.flags = PROF_STAT_DERIVED |
				 (c->count ? PROF_STAT_COUNTING : 0),
		};

		if (profile_add_stat(tpl, &s) < 0) {
			err = -PROF_ENOMEM;
			goto fail;
		}
	}
	if (c->start_after) {
		tpl->start_after = strdup(c->start_after);
		if (!tpl->start_after) {
			err = -PROF_ENOMEM;
			goto fail;
		}
		tpl->start_after_ns = r.fired_ns;
		tpl->start_after_latency_ns = r.handover_ns;
	}
	err = write_and_report(&r, tpl);
	if (err)
		goto fail;
	code = r.have_child ? status : 0;
	goto out;
fail_child:
	if (r.have_child) {
		kill(r.child.pid, SIGKILL);
		launch_wait(&r.child);
	}
fail:
	/* Our own failure is 125 even after the program ran: a script
	 * must not read success into a profile that was not written. */
	fprintf(stderr, "%s: %s\n", g_tool->name, prof_error(err));
out:
	profile_free(tpl);
	perf_session_free(r.sess);
	collector_free(r.col);
	if (r.have_child)
		launch_release_fds(&r.child);
	if (r.sigfd >= 0)
		close(r.sigfd);
	if (r.control_fd >= 0)
		close(r.control_fd);
	if (r.control_keep_fd >= 0)
		close(r.control_keep_fd);
	if (r.control_made)
		unlink(c->control);
	symbolizer_free(r.sym);
	free(r.choice);
	free(r.specs);
	free(r.derived);
	free(tids);
	free(path);
	return code;
}

int fe_main(const struct fe_tool *tool, int argc, char **argv)
{
	static char version[64];
	const struct argp_child children[] = {
		{ &(struct argp){ .options = stat_options,
				  .parser = parse_shared }, 0, NULL, 1 },
		{ &(struct argp){ .options = output_options,
				  .parser = parse_shared }, 0, NULL, 2 },
		{ &(struct argp){ .options = run_options,
				  .parser = parse_shared }, 0, NULL, 3 },
		{ &(struct argp){ .options = display_options,
				  .parser = parse_shared }, 0, NULL, 4 },
		{ 0 }
	};
	struct argp argp = {
		.options = tool->options,
		.parser = parse_root,
		.args_doc = tool->args_doc,
		.doc = tool->doc,
		.children = children,
	};
	struct fe_config cfg = { .stride = -1 };
	int code;

	g_tool = tool;
	snprintf(version, sizeof(version), "%s %s", tool->name, PROF_VERSION);
	argp_program_version = version;
	argp_err_exit_status = FE_EXIT_FAIL;
	setvbuf(stderr, NULL, _IOLBF, 0);
	/* One event per CPU, statistic and (with -p) thread: raise the
	 * descriptor limit to what we may. */
	{
		struct rlimit rl;

		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	/* Messages from argp and getopt name the tool, not its path. */
	argv[0] = (char *)tool->name;
	if (argp_parse(&argp, argc, argv, ARGP_LONG_ONLY | ARGP_IN_ORDER,
		       NULL, &cfg))
		return FE_EXIT_FAIL;
	/* -stride on its own: the bucket view. */
	if (cfg.stride >= 0 && cfg.view == REPORT_PROCEDURES)
		cfg.view = REPORT_BUCKETS;
	if (cfg.vmlinux && access(cfg.vmlinux, R_OK)) {
		fprintf(stderr, "%s: cannot read kernel image '%s': %s\n",
			tool->name, cfg.vmlinux, strerror(errno));
		code = FE_EXIT_FAIL;
	} else if (cfg.input)
		code = report_only(&cfg);
	else
		code = run_collection(&cfg);
	free(cfg.stats);
	free(cfg.only);
	free(cfg.exclude);
	return code;
}
