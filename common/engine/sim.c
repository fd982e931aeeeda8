/* SPDX-License-Identifier: MIT */
/*
 * The sim engine (contract in sim.h).
 *
 * Address mapping.  In callgrind's per-instruction output an instruction
 * of an object callgrind knows (ob=PATH) is given relative to that
 * object's load bias, i.e. as its ELF virtual address; code it cannot
 * place (the .init and .plt sections lie outside the text range valgrind
 * reads symbols for) is under ob=??? with its runtime address.  The
 * valgrind log (-v -v -v) names every object of the process with its
 * text section's svma and avma: bias = avma - svma.  We rebuild each
 * object's executable mappings from its PT_LOAD headers at that bias, as
 * the kernel would map them, and give the collector runtime addresses:
 * it turns them into (object, file offset) exactly as for the perf
 * engine, so both engines' profiles key the same code the same way.
 */
#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util/array.h"
#include "common/collect/collect.h"
#include "common/util/error.h"
#include "common/util/regfile.h"
#include "sim.h"
#include "common/stats/stats.h"

#define PAGE 4096ull
/* Where objects absent from a log are placed (see obj_bias). */
#define FAKE_BASE 0x7e0000000000ull
#define MAX_EVENTS 32

int sim_find_valgrind(char **path)
{
	const char *env = getenv("PATH");
	char *dirs, *save = NULL, *dir;

	if (!env || !*env)
		env = "/usr/bin:/bin";
	dirs = strdup(env);
	if (!dirs)
		return -PROF_ENOMEM;
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		char *p = NULL;

		if (asprintf(&p, "%s/valgrind", *dir ? dir : ".") < 0) {
			free(dirs);
			return -PROF_ENOMEM;
		}
		if (!access(p, X_OK)) {
			free(dirs);
			*path = p;
			return 0;
		}
		free(p);
	}
	free(dirs);
	return prof_fail(PROF_ENOENT, "the sim engine needs valgrind: not "
			 "found on PATH (install the valgrind package)");
}

/* ---- running ----------------------------------------------------------- */

struct sim_run {
	char *dir;		/* private temporary directory */
	char **argv;		/* valgrind command line */
	char *opt_out, *opt_log;
	struct launch child;
	int started;
	int watch;		/* inotify on dir, -1 if none */
	unsigned long seq;	/* files taken so far */
	unsigned long overwritten;	/* dumps lost before taken */
};

/*
 * --skip-plt=no: a PLT stub's instructions are its own, as the perf
 * engine sees them (by default callgrind charges them to the call).
 * --dump-before: the counts so far are written (and zeroed) on entry to
 * each function below.  Before a fork, so that the child does not
 * inherit and repeat its parent's counts: glibc >= 2.34 and musl >= 1.2.3
 * fork in _Fork, older glibc in __libc_fork, older musl in fork itself;
 * vfork and posix_spawn make their child with clone, which valgrind
 * turns into a fork.  Before an exec, because valgrind starts afresh at
 * exec without writing what the image being replaced counted since its
 * last dump.  The names are those of glibc and musl, dynamic or static;
 * a program that forks or execs otherwise (raw system calls, no symbol
 * table) is caught afterwards by check_dumps(), which says what is
 * missing or repeated.  An extra dump costs a file, never a count.
 * --vgdb=no: no gdbserver FIFOs left in /tmp.
 * The cache and branch simulations (sim_needs) are added only when a
 * statistic counts their events: each slows valgrind down further.
 */
#define FORK_FUNCS "_Fork", "__libc_fork", "fork", "__fork", "vfork", \
	"__vfork", "posix_spawn", "posix_spawnp", "__spawni"
#define EXEC_FUNCS "execve", "__execve", "execveat", "fexecve"
static const char *const fork_funcs[] = { FORK_FUNCS, NULL };
static const char *const exec_funcs[] = { EXEC_FUNCS, NULL };
static const char *const vg_fixed[] = {
	"--tool=callgrind", "--dump-instr=yes", "--skip-plt=no",
	"--trace-children=yes", "--collect-atstart=yes",
	"--separate-threads=no", "--compress-strings=no",
	"--compress-pos=no",
	"--dump-before=_Fork", "--dump-before=__libc_fork",
	"--dump-before=fork", "--dump-before=__fork",
	"--dump-before=vfork", "--dump-before=__vfork",
	"--dump-before=posix_spawn", "--dump-before=posix_spawnp",
	"--dump-before=__spawni",
	"--dump-before=execve", "--dump-before=__execve",
	"--dump-before=execveat", "--dump-before=fexecve",
	"--vgdb=no", "-v", "-v", "-v",
};	/* the --dump-before names are FORK_FUNCS and EXEC_FUNCS */
#define NFIXED (sizeof(vg_fixed) / sizeof(vg_fixed[0]))

/*
 * The simulations the statistics idx[0..n) need, as valgrind options
 * (NULL-terminated in opts[3]).  Ir needs none; the branch events (Bc,
 * Bcm, Bi, Bim) need the branch predictor's; every other event (Dr, Dw
 * and the cache misses) comes from the cache simulation.
 */
static void sim_needs(const size_t *idx, size_t n, const char *opts[3])
{
	int cache = 0, branch = 0, k = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const char *ev = stat_sim_def(idx[i])->sim.events;

		while (*ev) {
			size_t len = strcspn(ev, "+");

			if (*ev == 'B')
				branch = 1;
			else if (len != 2 || strncmp(ev, "Ir", 2))
				cache = 1;
			ev += len;
			if (*ev == '+')
				ev++;
		}
	}
	if (cache)
		opts[k++] = "--cache-sim=yes";
	if (branch)
		opts[k++] = "--branch-sim=yes";
	opts[k] = NULL;
}

const char *sim_what(const size_t *idx, size_t n)
{
	const char *sims[3];

	sim_needs(idx, n, sims);
	if (!sims[0])
		return "callgrind, instruction counts only";
	if (!sims[1])
		return sims[0][2] == 'c' ? "callgrind with cache simulation" :
			"callgrind with branch simulation";
	return "callgrind with cache and branch simulation";
}

void sim_describe(FILE *f, const char *valgrind, const char *path,
		  char *const argv[], const size_t *idx, size_t nidx)
{
	const char *sims[3];
	size_t i;

	sim_needs(idx, nidx, sims);
	fputs(valgrind, f);
	for (i = 0; i < NFIXED; i++)
		fprintf(f, " %s", vg_fixed[i]);
	for (i = 0; sims[i]; i++)
		fprintf(f, " %s", sims[i]);
	fprintf(f, " --callgrind-out-file=TMPDIR/callgrind.%%p"
		" --log-file=TMPDIR/vg.%%p %s", path);
	for (i = 1; argv[i]; i++)
		fprintf(f, " %s", argv[i]);
	fputc('\n', f);
}

int sim_start(struct sim_run **out, const char *valgrind, const char *path,
	      char *const argv[], const size_t *idx, size_t nidx)
{
	struct sim_run *s = calloc(1, sizeof(*s));
	const char *sims[3];
	const char *tmp = getenv("TMPDIR");
	size_t n = 0, i, k = 0;
	int err;

	*out = NULL;
	if (!s)
		return -PROF_ENOMEM;
	s->child.pid = -1;
	s->watch = -1;
	while (argv[n])
		n++;
	if (asprintf(&s->dir, "%s/uprofile-sim.XXXXXX",
		     tmp && *tmp ? tmp : "/tmp") < 0) {
		s->dir = NULL;
		goto oom;
	}
	if (!mkdtemp(s->dir)) {
		err = prof_fail(PROF_EIO, "cannot create a temporary directory "
				"'%s': %s", s->dir, strerror(errno));
		free(s->dir);
		s->dir = NULL;
		sim_free(s);
		return err;
	}
	/* Before valgrind writes anything: see take_file(). */
	s->watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (s->watch < 0 ||
	    inotify_add_watch(s->watch, s->dir, IN_CLOSE_WRITE) < 0) {
		err = prof_fail(PROF_EIO, "cannot watch the temporary "
				"directory '%s': %s", s->dir, strerror(errno));
		sim_free(s);
		return err;
	}
	if (asprintf(&s->opt_out, "--callgrind-out-file=%s/callgrind.%%p",
		     s->dir) < 0) {
		s->opt_out = NULL;
		goto oom;
	}
	if (asprintf(&s->opt_log, "--log-file=%s/vg.%%p", s->dir) < 0) {
		s->opt_log = NULL;
		goto oom;
	}
	s->argv = calloc(NFIXED + n + 7, sizeof(*s->argv));
	if (!s->argv)
		goto oom;
	s->argv[k++] = (char *)valgrind;
	for (i = 0; i < NFIXED; i++)
		s->argv[k++] = (char *)vg_fixed[i];
	sim_needs(idx, nidx, sims);
	for (i = 0; sims[i]; i++)
		s->argv[k++] = (char *)sims[i];
	s->argv[k++] = s->opt_out;
	s->argv[k++] = s->opt_log;
	s->argv[k++] = (char *)path;
	for (i = 1; i < n; i++)
		s->argv[k++] = argv[i];
	s->argv[k] = NULL;
	err = launch_start(&s->child, valgrind, s->argv);
	if (err) {
		sim_free(s);
		return err;
	}
	s->started = 1;
	*out = s;
	return 0;
oom:
	sim_free(s);
	return -PROF_ENOMEM;
}

struct launch *sim_child(struct sim_run *s)
{
	return &s->child;
}

void sim_free(struct sim_run *s)
{
	DIR *d;
	struct dirent *e;

	if (!s)
		return;
	if (s->dir && (d = opendir(s->dir))) {
		while ((e = readdir(d))) {
			char *p;

			if (e->d_name[0] == '.' ||
			    asprintf(&p, "%s/%s", s->dir, e->d_name) < 0)
				continue;
			unlink(p);
			free(p);
		}
		closedir(d);
		rmdir(s->dir);
	}
	free(s->dir);
	free(s->argv);
	free(s->opt_out);
	free(s->opt_log);
	if (s->watch >= 0)
		close(s->watch);
	free(s);
}

/* ---- taking valgrind's files as they are written ------------------------ */

/*
 * valgrind names its files by pid only: callgrind.PID for the final dump,
 * callgrind.PID.N for the N-th dump before a fork or exec, vg.PID for the
 * log.  An exec starts a new valgrind in the same pid, which counts its
 * dumps from 1 again and reopens the log: the files of the image it
 * replaced would be overwritten.  So each file is renamed when it is
 * closed, to cg.SEQ.PID or log.SEQ.PID in the order of closing: its
 * writer is done with a dump (a log is closed at exec, its fd being
 * close-on-exec; any later writes by a process that still holds it go to
 * the renamed file), and the next image of the pid cannot write the same
 * name before valgrind has started again, which takes far longer than
 * the rename.  Should it still happen, the second close finds no file:
 * a dump was overwritten, counted in s->overwritten and reported.  A final
 * dump's file is created empty when an image starts: it is taken only
 * once it has something.
 */
static void take_file(struct sim_run *s, const char *name, int sweep)
{
	char *from = NULL, *to = NULL, *end;
	unsigned long pid;
	int part, log;
	struct stat st;

	log = !strncmp(name, "vg.", 3);
	if (!log && strncmp(name, "callgrind.", 10))
		return;
	pid = strtoul(name + (log ? 3 : 10), &end, 10);
	part = *end == '.';
	if (asprintf(&from, "%s/%s", s->dir, name) < 0)
		return;
	if (!log && !part && (stat(from, &st) || !st.st_size)) {
		free(from);
		return;
	}
	if (asprintf(&to, "%s/%s.%06lu.%lu", s->dir, log ? "log" : "cg",
		     s->seq, pid) < 0) {
		free(from);
		return;
	}
	if (!rename(from, to))
		s->seq++;
	else if (errno == ENOENT && part && !sweep)
		s->overwritten++;
	free(from);
	free(to);
}

int sim_watch_fd(const struct sim_run *s)
{
	return s->watch;
}

void sim_service(struct sim_run *s)
{
	char buf[4096]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	if (s->watch < 0)
		return;
	while ((n = read(s->watch, buf, sizeof(buf))) > 0) {
		char *p = buf;

		while (p < buf + n) {
			const struct inotify_event *ev = (const void *)p;

			if (ev->len)
				take_file(s, ev->name, 0);
			p += sizeof(*ev) + ev->len;
		}
	}
}

static int cmp_sweep(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	unsigned long px, py, nx = ~0ul, ny = ~0ul;
	char *ex, *ey;

	px = strtoul(strchr(x, '.') + 1, &ex, 10);
	py = strtoul(strchr(y, '.') + 1, &ey, 10);
	if (*ex == '.')
		nx = strtoul(ex + 1, NULL, 10);
	if (*ey == '.')
		ny = strtoul(ey + 1, NULL, 10);
	if (px != py)
		return px < py ? -1 : 1;
	return nx < ny ? -1 : nx > ny;
}

/* After the run: the events still queued, then whatever is left (the
 * queue overflowed, or no event came), each pid's dumps in their order,
 * its final dump last. */
static int sweep_files(struct sim_run *s)
{
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, alloc = 0, i;
	int err = 0;

	sim_service(s);
	d = opendir(s->dir);
	if (!d)
		return prof_fail(PROF_EIO, "cannot read '%s': %s", s->dir,
				 strerror(errno));
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "callgrind.", 10) &&
		    strncmp(e->d_name, "vg.", 3))
			continue;
		if (ALLOC_GROW(names, n + 1, alloc) ||
		    !(names[n] = strdup(e->d_name))) {
			err = -PROF_ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_sweep);
	for (i = 0; i < n; i++) {
		if (!err)
			take_file(s, names[i], 1);
		free(names[i]);
	}
	free(names);
	return err;
}

/* ---- ELF: executable segments of an object ----------------------------- */

struct segment {
	uint64_t vaddr, memsz, offset;
	int exec;
};

struct elfinfo {
	char *path;
	struct segment *segs;
	size_t nsegs, alloc_segs;
	int ok;			/* headers read */
};

/* PT_LOAD headers of a 64-bit little-endian ELF file (what valgrind runs
 * on amd64 and arm64); anything else, a FIFO among them (it would block),
 * is not ok and gets one mapping. */
static int read_segments(struct elfinfo *e)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = regfile_open(e->path, NULL);
	unsigned i;

	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph)) {
		close(fd);
		return -1;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		struct segment *sg;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff +
		    (uint64_t)i * sizeof(ph))) != (ssize_t)sizeof(ph))
			break;
		if (ph.p_type != PT_LOAD)
			continue;
		if (ALLOC_GROW(e->segs, e->nsegs + 1, e->alloc_segs))
			break;
		sg = &e->segs[e->nsegs++];
		sg->vaddr = ph.p_vaddr;
		sg->memsz = ph.p_memsz;
		sg->offset = ph.p_offset;
		sg->exec = !!(ph.p_flags & PF_X);
	}
	close(fd);
	return e->nsegs ? 0 : -1;
}

/* ---- one process: its log ---------------------------------------------- */

struct logobj {
	char *path;
	uint64_t bias;
};

struct proclog {
	char *command;		/* "Command:" line, canonical (canon()) */
	char *args;		/* the same, each argument ended by NUL */
	size_t argslen;
	unsigned long ppid;	/* "Parent PID:" line */
	char *libdir;		/* valgrind's library directory */
	struct logobj *objs;
	size_t nobjs, alloc_objs;
};

static void proclog_release(struct proclog *l)
{
	size_t i;

	for (i = 0; i < l->nobjs; i++)
		free(l->objs[i].path);
	free(l->objs);
	free(l->command);
	free(l->args);
	free(l->libdir);
	memset(l, 0, sizeof(*l));
}

static char *chomp_dup(const char *s)
{
	size_t n = strcspn(s, "\n");

	while (n && s[n - 1] == ' ')
		n--;
	return strndup(s, n);
}

/* Text after the "==PID== " / "--PID-- " prefix, or NULL. */
static const char *log_text(const char *line)
{
	const char *p;

	if ((line[0] != '=' && line[0] != '-') || line[1] != line[0])
		return NULL;
	p = strstr(line + 2, line[0] == '=' ? "==" : "--");
	return p ? p + 3 : NULL;
}

/*
 * The command in one spelling for the log's "Command:" and callgrind's
 * "cmd:" line, so that they can be compared.  The log escapes spaces and
 * backslashes with a backslash and writes control characters as '_';
 * "cmd:" writes a backslash as "\\", a newline as "\n" and other
 * characters as they are.  Both become the plain text with control
 * characters as '_'.
 */
static void canon(char *s, int from_log)
{
	char *d = s;

	for (; *s; s++) {
		char ch = *s;

		if (ch == '\\' && s[1]) {
			ch = *++s;
			if (!from_log && ch == 'n')
				ch = '\n';
		}
		*d++ = (unsigned char)ch < 0x20 ? '_' : ch;
	}
	*d = '\0';
}

/* The log's "Command:" as arguments, each ended by NUL: the log escapes
 * spaces and backslashes with a backslash (control characters stay '_'). */
static char *split_args(const char *s, size_t *len)
{
	char *out = malloc(strlen(s) + 1), *d = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		if (*s == '\\' && s[1])
			*d++ = *++s;
		else if (*s == ' ')
			*d++ = '\0';
		else
			*d++ = *s;
	}
	*d++ = '\0';
	*len = (size_t)(d - out);
	return out;
}

static int read_log(const char *path, struct proclog *l)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *pending = NULL;
	size_t cap = 0;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		const char *t = log_text(line);
		const char *v;

		if (!t)
			continue;
		while (*t == ' ')
			t++;
		if (!strncmp(t, "Reading syms from ", 18)) {
			free(pending);
			pending = chomp_dup(t + 18);
		} else if (pending && (v = strstr(t, "svma 0x"))) {
			unsigned long long svma, avma;

			if (sscanf(v, "svma %llx, avma %llx", &svma,
				   &avma) == 2 &&
			    !ALLOC_GROW(l->objs, l->nobjs + 1, l->alloc_objs)) {
				l->objs[l->nobjs].path = pending;
				l->objs[l->nobjs++].bias = avma - svma;
				pending = NULL;
			}
		} else if (!strncmp(t, "Command: ", 9) && !l->command) {
			l->command = chomp_dup(t + 9);
			if (l->command)
				l->args = split_args(l->command, &l->argslen);
			if (l->command)
				canon(l->command, 1);
		} else if (!strncmp(t, "Parent PID: ", 12)) {
			l->ppid = strtoul(t + 12, NULL, 10);
		} else if (!strncmp(t, "Valgrind library directory: ", 28)) {
			free(l->libdir);
			l->libdir = chomp_dup(t + 28);
		}
	}
	free(pending);
	free(line);
	fclose(f);
	return 0;
}

/* Every log of the run, each of one process image or of the part of a
 * forked child (sweep_files() kept them all). */
struct logset {
	struct proclog *logs;
	unsigned long *pids, *seqs;
	size_t n, alloc;
};

static void logset_release(struct logset *ls)
{
	size_t i;

	for (i = 0; i < ls->n; i++)
		proclog_release(&ls->logs[i]);
	free(ls->logs);
	free(ls->pids);
	free(ls->seqs);
	memset(ls, 0, sizeof(*ls));
}

static int logset_load(struct logset *ls, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t alloc_pids = 0, alloc_seqs = 0;

	if (!d)
		return prof_fail(PROF_EIO, "cannot read '%s': %s", dir,
				 strerror(errno));
	while ((e = readdir(d))) {
		char *lp = NULL, *dot;

		if (strncmp(e->d_name, "log.", 4) ||
		    !(dot = strchr(e->d_name + 4, '.')))
			continue;
		if (ALLOC_GROW(ls->logs, ls->n + 1, ls->alloc) ||
		    ALLOC_GROW(ls->pids, ls->n + 1, alloc_pids) ||
		    ALLOC_GROW(ls->seqs, ls->n + 1, alloc_seqs) ||
		    asprintf(&lp, "%s/%s", dir, e->d_name) < 0) {
			closedir(d);
			return -PROF_ENOMEM;
		}
		memset(&ls->logs[ls->n], 0, sizeof(ls->logs[0]));
		ls->seqs[ls->n] = strtoul(e->d_name + 4, NULL, 10);
		ls->pids[ls->n] = strtoul(dot + 1, NULL, 10);
		if (!read_log(lp, &ls->logs[ls->n]))
			ls->n++;
		else
			proclog_release(&ls->logs[ls->n]);
		free(lp);
	}
	closedir(d);
	return 0;
}

/* The parent of pid: from its earliest log (a later image's may name
 * init, if the parent has exited by then). */
static unsigned long log_ppid(const struct logset *ls, unsigned long pid)
{
	unsigned long ppid = 0, seq = ~0ul;
	size_t i;

	for (i = 0; i < ls->n; i++)
		if (ls->pids[i] == pid && ls->logs[i].ppid &&
		    ls->seqs[i] < seq) {
			ppid = ls->logs[i].ppid;
			seq = ls->seqs[i];
		}
	return ppid;
}

/*
 * The objects of pid while it ran command cmd, into *l: from its logs of
 * that command, then (a forked child's valgrind names only the objects it
 * loads itself) from its parent's logs of the same command, and so on up
 * while the command stays the same.  A forked child that exec'd may have
 * no log of its command before the exec (the new image's valgrind reopens
 * the log before the old one is closed): its parent's log, of the same
 * command, names the same mappings.  0, or -1 when no log of cmd is
 * found.
 */
static int select_log(const struct logset *ls, unsigned long pid,
		      const char *cmd, struct proclog *l)
{
	int depth, any = 0;

	for (depth = 0; pid && cmd && depth < 64; depth++) {
		unsigned long ppid = log_ppid(ls, pid);
		int found = 0;
		size_t i, j, k;

		for (i = 0; i < ls->n; i++) {
			const struct proclog *pl = &ls->logs[i];

			if (ls->pids[i] != pid || !pl->command ||
			    strcmp(pl->command, cmd))
				continue;
			found = 1;
			if (!l->libdir && pl->libdir)
				l->libdir = strdup(pl->libdir);
			if (!l->command)
				l->command = strdup(pl->command);
			if (!any && !l->args && pl->args &&
			    (l->args = malloc(pl->argslen))) {
				memcpy(l->args, pl->args, pl->argslen);
				l->argslen = pl->argslen;
			}
			for (j = 0; j < pl->nobjs; j++) {
				struct logobj *lo;

				for (k = 0; k < l->nobjs; k++)
					if (!strcmp(l->objs[k].path,
						    pl->objs[j].path))
						break;
				if (k < l->nobjs || ALLOC_GROW(l->objs,
				    l->nobjs + 1, l->alloc_objs))
					continue;
				lo = &l->objs[l->nobjs];
				lo->path = strdup(pl->objs[j].path);
				lo->bias = pl->objs[j].bias;
				if (lo->path)
					l->nobjs++;
			}
		}
		if (!found && (any || depth))
			break;
		any |= found;
		pid = ppid;
	}
	return any ? 0 : -1;
}

/* ---- reading callgrind output ------------------------------------------ */

/* What ended a dump ("desc: Trigger:"). */
enum trigger { TRIG_END, TRIG_FORK, TRIG_EXEC, TRIG_OTHER };

/* One dump: a file cg.SEQ.PID (take_file()). */
struct outfile {
	char *name;
	unsigned long pid, seq;
	/* read from it */
	char *cmd;			/* "cmd:", canonical (canon()) */
	uint64_t from, to;		/* "Timerange: Basic block A - B" */
	enum trigger trig;
	int has_range;
	int claimed;			/* a forked child starts here */
};

static int cmp_outfile(const void *a, const void *b)
{
	const struct outfile *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static enum trigger trigger_of(const char *t)
{
	size_t n = strcspn(t, "\n"), i;

	if (n >= 19 && !strncmp(t, "Program termination", 19))
		return TRIG_END;
	if (strncmp(t, "--dump-before=", 14))
		return TRIG_OTHER;
	t += 14;
	n -= 14;
	for (i = 0; fork_funcs[i]; i++)
		if (strlen(fork_funcs[i]) == n && !strncmp(t, fork_funcs[i], n))
			return TRIG_FORK;
	for (i = 0; exec_funcs[i]; i++)
		if (strlen(exec_funcs[i]) == n && !strncmp(t, exec_funcs[i], n))
			return TRIG_EXEC;
	return TRIG_OTHER;
}

/* An object as used in one callgrind file. */
struct fobj {
	char *path;		/* NULL: ob=??? */
	struct elfinfo *elf;
	uint64_t bias;
	int skip;		/* valgrind's own */
	int mapped;		/* mappings given to the collector */
};

struct parser {
	struct collector *col;
	const size_t *stats;
	size_t nstats;
	uint32_t first_stat;
	struct sim_result *res;

	struct elfinfo **elves;		/* parsed once per path */
	size_t nelves, alloc_elves;

	const struct logset *logs;

	/* the current file */
	uint32_t pid;
	uint64_t time;
	struct proclog log;
	int log_ok;			/* the log is of this image */
	struct fobj *objs;
	size_t nobjs, alloc_objs;
	size_t nfake;
	/* per statistic: the event columns summed */
	int cols[16][MAX_EVENTS];
	int ncols[16];
	int npos;			/* position columns (instr [line]) */
};

static struct elfinfo *elf_get(struct parser *p, const char *path)
{
	struct elfinfo *e;
	size_t i;

	for (i = 0; i < p->nelves; i++)
		if (!strcmp(p->elves[i]->path, path))
			return p->elves[i];
	if (ALLOC_GROW(p->elves, p->nelves + 1, p->alloc_elves))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e || !(e->path = strdup(path))) {
		free(e);
		return NULL;
	}
	e->ok = read_segments(e) == 0;
	p->elves[p->nelves++] = e;
	return e;
}

static int is_valgrind_own(const struct parser *p, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	if (!strncmp(base, "vgpreload_", 10))
		return 1;
	if (!p->log.libdir)
		return 0;
	n = strlen(p->log.libdir);
	return !strncmp(path, p->log.libdir, n) && path[n] == '/';
}

/*
 * The load bias of path in this process: from the log when it is the log
 * of this image, else a made-up one (an image replaced by exec had its
 * log overwritten): offsets stay right, only load addresses are invented.
 */
static uint64_t obj_bias(struct parser *p, const char *path)
{
	size_t i;

	if (p->log_ok)
		for (i = 0; i < p->log.nobjs; i++)
			if (!strcmp(p->log.objs[i].path, path))
				return p->log.objs[i].bias;
	return FAKE_BASE + (uint64_t)p->nfake++ * 0x100000000ull;
}

static struct fobj *fobj_get(struct parser *p, const char *path)
{
	struct fobj *o;
	size_t i;

	for (i = 0; i < p->nobjs; i++)
		if (p->objs[i].path && !strcmp(p->objs[i].path, path))
			return &p->objs[i];
	if (ALLOC_GROW(p->objs, p->nobjs + 1, p->alloc_objs))
		return NULL;
	o = &p->objs[p->nobjs];
	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	if (!o->path)
		return NULL;
	o->skip = is_valgrind_own(p, path);
	if (!o->skip) {
		o->elf = elf_get(p, path);
		o->bias = obj_bias(p, path);
	}
	p->nobjs++;
	return o;
}

/* Give the collector the object's executable mappings, as mmap(2) would
 * have made them. */
static void map_object(struct parser *p, struct fobj *o)
{
	size_t i;

	if (o->mapped || o->skip)
		return;
	o->mapped = 1;
	if (!o->elf || !o->elf->ok) {
		/* Unreadable: one mapping whose offsets are addresses. */
		collector_mmap(p->col, p->pid, o->bias, 1ull << 40, 0, o->path,
			       NULL, 0, p->time);
		return;
	}
	for (i = 0; i < o->elf->nsegs; i++) {
		const struct segment *sg = &o->elf->segs[i];
		uint64_t start = (o->bias + sg->vaddr) & ~(PAGE - 1);
		uint64_t end = (o->bias + sg->vaddr + sg->memsz + PAGE - 1) &
			       ~(PAGE - 1);

		if (!sg->exec)
			continue;
		collector_mmap(p->col, p->pid, start, end - start,
			       sg->offset & ~(PAGE - 1), o->path, NULL, 0,
			       p->time);
	}
}

/* ob=???: the runtime address of an object of the log, if any. */
static struct fobj *find_runtime(struct parser *p, uint64_t addr)
{
	size_t i, k;

	if (!p->log_ok)
		return NULL;
	for (i = 0; i < p->log.nobjs; i++) {
		const struct logobj *lo = &p->log.objs[i];
		struct elfinfo *e = elf_get(p, lo->path);

		if (!e || !e->ok)
			continue;
		for (k = 0; k < e->nsegs; k++)
			if (addr >= lo->bias + e->segs[k].vaddr &&
			    addr < lo->bias + e->segs[k].vaddr +
				   e->segs[k].memsz)
				return fobj_get(p, lo->path);
	}
	return NULL;
}

static int setup_events(struct parser *p, const char *list)
{
	char names[MAX_EVENTS][16];
	int n = 0;
	size_t s;
	const char *c = list;

	while (n < MAX_EVENTS) {
		int len = 0;

		while (*c == ' ')
			c++;
		if (!*c || *c == '\n')
			break;
		if (sscanf(c, "%15s%n", names[n], &len) != 1)
			break;
		c += len;
		n++;
	}
	for (s = 0; s < p->nstats; s++) {
		const char *ev = stat_sim_def(p->stats[s])->sim.events;

		p->ncols[s] = 0;
		while (*ev) {
			size_t len = strcspn(ev, "+");
			int j;

			for (j = 0; j < n; j++)
				if (strlen(names[j]) == len &&
				    !strncmp(names[j], ev, len))
					break;
			if (j == n)
				return prof_fail(PROF_EFORMAT, "valgrind output "
						 "has no '%.*s' event "
						 "(statistic %s)", (int)len, ev,
						 stat_sim_def(p->stats[s])->name);
			p->cols[s][p->ncols[s]++] = j;
			ev += len;
			if (*ev == '+')
				ev++;
		}
	}
	return 0;
}

/* One cost line: "ADDR [LINE] N N N ..." (trailing zeros omitted). */
static void cost_line(struct parser *p, const char *line, struct fobj *cur,
		      uint64_t *last_addr)
{
	uint64_t ev[MAX_EVENTS] = { 0 }, addr = *last_addr;
	char *end;
	const char *c = line;
	int i, n = 0;
	size_t s;
	struct fobj *o = cur;

	for (i = 0; i < p->npos; i++) {
		uint64_t v;

		while (*c == ' ')
			c++;
		if (*c == '*') {
			v = i == 0 ? *last_addr : 0;
			c++;
		} else if (*c == '+' || *c == '-') {
			uint64_t d = strtoull(c + 1, &end, 0);

			v = *c == '+' ? *last_addr + d : *last_addr - d;
			c = end;
		} else {
			v = strtoull(c, &end, 0);
			if (end == c)
				return;
			c = end;
		}
		if (i == 0)
			addr = v;
	}
	*last_addr = addr;
	while (n < MAX_EVENTS) {
		while (*c == ' ')
			c++;
		if (!isdigit((unsigned char)*c))
			break;
		ev[n++] = strtoull(c, &end, 10);
		c = end;
	}
	if (!o) {
		o = find_runtime(p, addr);
		if (o)
			addr -= o->bias;	/* back to the ELF address */
	}
	for (s = 0; s < p->nstats; s++) {
		struct collect_sample smp = {
			.stat = p->first_stat + (uint32_t)s,
			.pid = p->pid, .tid = p->pid, .cpu = 0,
			.time = p->time,
			.cpumode = PERF_RECORD_MISC_USER,
		};
		uint64_t sum = 0;
		int k;

		for (k = 0; k < p->ncols[s]; k++)
			sum += ev[p->cols[s][k]];
		if (!sum)
			continue;
		if (o && o->skip) {
			p->res->skipped += sum;
			continue;
		}
		if (o) {
			map_object(p, o);
			smp.ip = o->bias + addr;
		} else {
			smp.ip = addr;	/* nobody's: [unknown] */
		}
		smp.period = sum;
		collector_sample(p->col, &smp);
	}
}

static void file_release(struct parser *p)
{
	size_t i;

	for (i = 0; i < p->nobjs; i++)
		free(p->objs[i].path);
	free(p->objs);
	p->objs = NULL;
	p->nobjs = p->alloc_objs = 0;
	proclog_release(&p->log);
}

static int read_file(struct parser *p, const char *dir, struct outfile *of)
{
	const char *name = of->name;
	char *path = NULL, *line = NULL, *cmd = NULL;
	size_t cap = 0;
	FILE *f;
	struct fobj *cur = NULL;
	uint64_t last_addr = 0;
	int err = 0, skip_next = 0, body = 0;
	unsigned long pid = 0;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -PROF_ENOMEM;
	f = fopen(path, "r");
	free(path);
	if (!f)
		return prof_fail(PROF_EIO, "cannot read valgrind output '%s': "
				 "%s", name, strerror(errno));
	p->npos = 1;
	memset(p->ncols, 0, sizeof(p->ncols));
	while (getline(&line, &cap, f) > 0) {
		char c0 = line[0];

		if (c0 == '0' || c0 == '+' || c0 == '-' || c0 == '*' ||
		    isdigit((unsigned char)c0)) {
			if (!body)
				continue;
			if (skip_next) {	/* a call's inclusive cost */
				skip_next = 0;
				continue;
			}
			cost_line(p, line, cur, &last_addr);
			continue;
		}
		if (!strncmp(line, "ob=", 3)) {
			char *o = line + 3;

			o[strcspn(o, "\n")] = '\0';
			cur = strcmp(o, "???") ? fobj_get(p, o) : NULL;
			if (strcmp(o, "???") && !cur) {
				err = -PROF_ENOMEM;
				break;
			}
		} else if (!strncmp(line, "calls=", 6)) {
			skip_next = 1;
		} else if (!strncmp(line, "pid: ", 5)) {
			pid = strtoul(line + 5, NULL, 10);
			p->pid = (uint32_t)pid;
		} else if (!strncmp(line, "desc: Timerange: Basic block ",
				    29)) {
			unsigned long long a, b;

			if (sscanf(line + 29, "%llu - %llu", &a, &b) == 2) {
				of->from = a;
				of->to = b;
				of->has_range = 1;
			}
		} else if (!strncmp(line, "desc: Trigger: ", 15)) {
			of->trig = trigger_of(line + 15);
		} else if (!strncmp(line, "cmd: ", 5)) {
			cmd = chomp_dup(line + 5);
		} else if (!strncmp(line, "positions: ", 11)) {
			p->npos = strstr(line, "line") ? 2 : 1;
		} else if (!strncmp(line, "events: ", 8)) {
			char comm[16], *base;

			err = setup_events(p, line + 8);
			if (err)
				break;
			/* The logs of this image: those naming the same
			 * command (a pid's logs are of each of its images). */
			while (cmd && *cmd == ' ')
				memmove(cmd, cmd + 1, strlen(cmd));
			if (cmd)
				canon(cmd, 0);
			p->log_ok = !select_log(p->logs, pid, cmd, &p->log);
			free(of->cmd);
			of->cmd = cmd ? strdup(cmd) : NULL;
			base = cmd ? cmd : (char *)"?";
			base[strcspn(base, " ")] = '\0';
			snprintf(comm, sizeof(comm), "%s",
				 strrchr(base, '/') ? strrchr(base, '/') + 1 :
				 base);
			/* Each file is a whole picture of its image: earlier
			 * mappings of the pid end here. */
			collector_comm(p->col, p->pid, p->pid, comm, 1,
				       p->time);
			if (p->log_ok && p->log.args)
				collector_cmdline(p->col, p->pid, p->log.args,
						  p->log.argslen);
			body = 1;
		}
	}
	free(line);
	free(cmd);
	fclose(f);
	file_release(p);
	if (!err && !body)
		return prof_fail(PROF_EFORMAT, "valgrind output '%s' has no "
				 "events", name);
	return err;
}

/* The last lines of the first log, for an error message. */
static void log_tail(const char *dir, char *buf, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *path = NULL, *line = NULL, last[3][200] = { "", "", "" };
	size_t cap = 0, used = 0;
	FILE *f;
	int k;

	buf[0] = '\0';
	if (!d)
		return;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "vg.", 3) ||
		    !strncmp(e->d_name, "log.", 4))
			break;
	if (!e || asprintf(&path, "%s/%s", dir, e->d_name) < 0) {
		closedir(d);
		return;
	}
	closedir(d);
	f = fopen(path, "r");
	free(path);
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		const char *t = log_text(line);

		t = t ? t : line;
		while (*t == ' ')
			t++;
		if (!*t || *t == '\n')
			continue;
		memmove(last[0], last[1], sizeof(last[0]) * 2);
		snprintf(last[2], sizeof(last[2]), "%.*s",
			 (int)strcspn(t, "\n"), t);
	}
	free(line);
	fclose(f);
	for (k = 0; k < 3; k++) {
		int w;

		if (!last[k][0])
			continue;
		w = snprintf(buf + used, len - used, "%s%s", used ? "; " : "",
			     last[k]);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
}

/* The program's name in a command, for messages. */
static const char *prog_name(const char *cmd, char *buf, size_t len)
{
	const char *base;
	size_t n;

	if (!cmd)
		return "?";
	n = strcspn(cmd, " ");
	base = memrchr(cmd, '/', n);
	base = base ? base + 1 : cmd;
	snprintf(buf, len, "%.*s", (int)(n - (size_t)(base - cmd)), base);
	return buf;
}

static void add_gap(struct sim_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_gap(struct sim_result *res, const char *fmt, ...)
{
	va_list ap;
	char *m = NULL;
	int r;

	if (ALLOC_GROW(res->gaps, res->ngaps + 1, res->alloc_gaps))
		return;
	va_start(ap, fmt);
	r = vasprintf(&m, fmt, ap);
	va_end(ap);
	if (r >= 0)
		res->gaps[res->ngaps++] = m;
}

/*
 * Whether the dumps account for every instruction once (files in pid and
 * taking order).  callgrind numbers basic blocks executed per process
 * image, from 0 at its start; a forked child goes on with its parent's
 * number, and each dump covers the blocks since the previous one (its
 * "Timerange").  So:
 * - in one pid, a dump that starts at block 0 after other dumps starts a
 *   new image: the one before must have ended with a dump at exec, or
 *   what it ran after its last dump is missing;
 * - a forked child's first dump starts where its parent's last dump
 *   ended: that dump must be one made at a fork, for this child alone,
 *   or the child repeats what its parent ran between that dump and the
 *   fork;
 * - a child whose first dump starts at 0 with another command than its
 *   parent's was exec'd before any dump: what it ran between the fork
 *   and the exec is missing.
 */
static void check_dumps(struct outfile *f, size_t n, unsigned long root,
			const struct logset *ls, unsigned long overwritten,
			struct sim_result *res)
{
	char b1[64], b2[64];
	size_t i, k;

	if (overwritten)
		add_gap(res, "%lu dump(s) of processes overwritten before "
			"they could be read: their counts are missing",
			overwritten);
	for (i = 0; i < n; i++) {
		unsigned long ppid;
		int same_cmd = 0, found = 0;

		if (!f[i].has_range)
			continue;
		if (i && f[i - 1].pid == f[i].pid) {
			if (f[i].from == 0 && f[i - 1].trig != TRIG_EXEC)
				add_gap(res, "process %lu: what '%s' ran after "
					"its last dump until it exec'd '%s' "
					"is missing (an exec valgrind did not "
					"see coming)", f[i].pid,
					prog_name(f[i - 1].cmd, b1, sizeof(b1)),
					prog_name(f[i].cmd, b2, sizeof(b2)));
			continue;
		}
		if (f[i].pid == root)
			continue;
		ppid = log_ppid(ls, f[i].pid);
		for (k = 0; k < n; k++) {
			if (f[k].pid != ppid)
				continue;
			if (f[k].cmd && f[i].cmd && !strcmp(f[k].cmd, f[i].cmd))
				same_cmd = 1;
			if (f[i].from && f[k].has_range &&
			    f[k].to == f[i].from && f[k].trig == TRIG_FORK &&
			    !f[k].claimed) {
				f[k].claimed = 1;
				found = 1;
				break;
			}
		}
		if (found)
			continue;
		if (f[i].from == 0 && !same_cmd)
			add_gap(res, "process %lu: what it ran from its fork "
				"until it exec'd '%s' is missing (an exec "
				"valgrind did not see coming)", f[i].pid,
				prog_name(f[i].cmd, b1, sizeof(b1)));
		else
			add_gap(res, "process %lu ('%s'): its counts repeat "
				"what its parent (process %lu) ran from its "
				"last dump to the fork (a fork valgrind did "
				"not see coming)", f[i].pid,
				prog_name(f[i].cmd, b1, sizeof(b1)), ppid);
	}
}

void sim_result_release(struct sim_result *res)
{
	size_t i;

	for (i = 0; i < res->ngaps; i++)
		free(res->gaps[i]);
	free(res->gaps);
	memset(res, 0, sizeof(*res));
}

int sim_collect(struct sim_run *s, struct collector *c, const size_t *stats,
		size_t nstats, uint32_t first_stat, struct sim_result *res)
{
	struct parser p = { .col = c, .stats = stats, .nstats = nstats,
			    .first_stat = first_stat, .res = res };
	struct logset logs = { 0 };
	struct outfile *files = NULL;
	size_t nfiles = 0, alloc = 0, i;
	DIR *d;
	struct dirent *e;
	int err = 0;

	memset(res, 0, sizeof(*res));
	if (nstats > 16)
		return prof_fail(PROF_EINVAL, "too many statistics for the sim "
				 "engine (at most 16)");
	err = sweep_files(s);
	if (!err)
		err = logset_load(&logs, s->dir);
	if (err) {
		logset_release(&logs);
		return err;
	}
	p.logs = &logs;
	d = opendir(s->dir);
	if (!d) {
		logset_release(&logs);
		return prof_fail(PROF_EIO, "cannot read '%s': %s", s->dir,
				 strerror(errno));
	}
	while ((e = readdir(d))) {
		struct outfile *o;
		char *end;

		if (strncmp(e->d_name, "cg.", 3))
			continue;
		if (ALLOC_GROW(files, nfiles + 1, alloc)) {
			err = -PROF_ENOMEM;
			break;
		}
		o = &files[nfiles];
		memset(o, 0, sizeof(*o));
		o->name = strdup(e->d_name);
		if (!o->name) {
			err = -PROF_ENOMEM;
			break;
		}
		o->seq = strtoul(e->d_name + 3, &end, 10);
		o->pid = *end == '.' ? strtoul(end + 1, NULL, 10) : 0;
		nfiles++;
	}
	closedir(d);
	if (!err && !nfiles) {
		char tail[512];

		log_tail(s->dir, tail, sizeof(tail));
		err = prof_fail(PROF_EIO, "valgrind produced no profile%s%s",
				tail[0] ? ": " : "", tail);
	}
	if (nfiles > 1)
		qsort(files, nfiles, sizeof(*files), cmp_outfile);
	/*
	 * Files in pid and taking order, each at its own time: per pid, each
	 * file describes one image completely, so the collector ends the
	 * earlier file's mappings where the next begins.
	 */
	for (i = 0; !err && i < nfiles; i++) {
		p.time = i + 1;
		err = read_file(&p, s->dir, &files[i]);
		res->processes++;
	}
	if (!err)
		check_dumps(files, nfiles, (unsigned long)s->child.pid, &logs,
			    s->overwritten, res);
	for (i = 0; i < nfiles; i++) {
		free(files[i].name);
		free(files[i].cmd);
	}
	free(files);
	for (i = 0; i < p.nelves; i++) {
		free(p.elves[i]->path);
		free(p.elves[i]->segs);
		free(p.elves[i]);
	}
	free(p.elves);
	logset_release(&logs);
	collector_round_end(c);
	return err;
}
