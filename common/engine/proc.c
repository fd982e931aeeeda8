/* SPDX-License-Identifier: MIT */
/*
 * /proc for a run: mappings of processes that exist before it, the
 * threads of -p PID, and the checks before attaching (proc.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "proc.h"
#include "common/collect/collect.h"
#include "common/util/array.h"
#include "common/util/error.h"
#include "common/util/parse.h"
#include "common/util/regfile.h"

/*
 * The live mapping of pid that holds [start, end), through
 * /proc/PID/map_files (root only): the kernel's own reference to the
 * file, whatever its path names now.  A mapping split since the record
 * (mprotect of a part) is found by overlap.
 */
static int open_map_files(pid_t pid, uint64_t start, uint64_t end)
{
	char buf[96];
	struct dirent *e;
	DIR *d;
	int fd;

	snprintf(buf, sizeof(buf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 (int)pid, start, end);
	fd = open(buf, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0 || errno != ENOENT)
		return fd;
	snprintf(buf, sizeof(buf), "/proc/%d/map_files", (int)pid);
	d = opendir(buf);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		unsigned long long lo, hi;

		if (sscanf(e->d_name, "%llx-%llx", &lo, &hi) != 2 ||
		    hi <= start || lo >= end)
			continue;
		fd = openat(dirfd(d), e->d_name,
			    O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd >= 0)
			break;
	}
	closedir(d);
	return fd;
}

/* path resolved inside pid's root, as the process resolves it: an
 * absolute link in a container leads to the container's file, never to
 * ours. */
static int open_in_root(pid_t pid, const char *path)
{
	char root[32];

	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	return regfile_open_in(root, path, NULL);
}

/* Whether fd is the file the kernel recorded: the inode at least through
 * map_files (the range may hold another mapping now), the device too by
 * path (a link planted since is another file). */
static bool is_recorded(int fd, const struct collect_file_id *id, bool live,
			struct stat *st)
{
	return !fstat(fd, st) && S_ISREG(st->st_mode) && id->ino &&
	       st->st_ino == id->ino &&
	       (live || (major(st->st_dev) == id->maj &&
			 minor(st->st_dev) == id->min));
}

int proc_mapped_file(pid_t pid, uint64_t start, uint64_t end,
		     const char *path, const struct collect_file_id *id,
		     enum proc_file_state *state)
{
	struct stat st, here;
	bool live = false;
	int fd = -1;

	*state = PROC_FILE_HERE;
	if (path[0] != '/' || pid <= 0 || !strncmp(path, "//anon", 6) ||
	    !strncmp(path, "/memfd:", 7))
		return -1;
	fd = open_map_files(pid, start, end);
	live = fd >= 0;
	/* Resolved as the process resolves it while it runs; once it is
	 * gone, only our path may still be the file it mapped. */
	if (!live)
		fd = open_in_root(pid, path);
	if (fd >= 0 && !is_recorded(fd, id, live, &st)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 && (fd = regfile_open(path, NULL)) >= 0 &&
	    !is_recorded(fd, id, false, &st)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		/* Root must not read by path what the process may have
		 * pointed elsewhere; a user reads only what it may. */
		*state = geteuid() ? PROC_FILE_HERE : PROC_FILE_UNREAD;
		return -1;
	}
	/* Not the file our path names (a container's, or replaced): its
	 * bytes travel in the profile. */
	if (stat(path, &here) || here.st_dev != st.st_dev ||
	    here.st_ino != st.st_ino)
		*state = PROC_FILE_FOREIGN;
	return fd;
}

void proc_map_file(struct collector *col, uint32_t pid, uint64_t start,
		   uint64_t len, uint64_t pgoff, const char *path,
		   uint64_t time, const struct collect_file_id *id)
{
	enum proc_file_state state = PROC_FILE_HERE;
	char buf[32];
	struct stat st;
	int fd = -1;

	if (collector_owner_wanted(col, pid)) {
		snprintf(buf, sizeof(buf), "/proc/%" PRIu32, pid);
		if (!stat(buf, &st))
			collector_set_owner(col, pid, (uint32_t)st.st_uid);
	}
	if (!collector_file_known(col, path, id))
		fd = proc_mapped_file((pid_t)pid, start, start + len, path, id,
				      &state);
	collector_mmap_file(col, pid, start, len, pgoff, path, time, id, fd,
			    state == PROC_FILE_FOREIGN,
			    state == PROC_FILE_UNREAD);
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
		unsigned long long lo, hi, off, ino;
		unsigned maj, min;
		char perm[8];
		int name_at = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu%n", &lo, &hi,
			   perm, &off, &maj, &min, &ino, &name_at) < 7 ||
		    perm[2] != 'x')
			continue;
		while (line[name_at] == ' ')
			name_at++;
		line[strcspn(line, "\n")] = '\0';
		proc_map_file(col, (uint32_t)pid, lo, hi - lo, off,
			      line + name_at, 0,
			      &(struct collect_file_id){ .maj = maj,
							 .min = min,
							 .ino = ino });
		n++;
	}
	fclose(f);
	return n;
}

void proc_read_cmdline(struct collector *col, pid_t pid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	/* A process that has exited, or a kernel thread, reads empty. */
	if (n > 0)
		collector_cmdline(col, (uint32_t)pid, buf, (size_t)n);
}

/* The names of the threads of an existing process, from /proc: no COMM
 * record names them. */
static void synthesize_comms(struct collector *col, pid_t pid)
{
	char path[96], comm[64];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		long tid;
		FILE *f;

		if (parse_int(e->d_name, 1, INT_MAX, &tid))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/comm",
			 (int)pid, tid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = '\0';
			collector_comm_scanned(col, (uint32_t)pid,
					       (uint32_t)tid, comm);
		}
		fclose(f);
	}
	closedir(d);
}

/*
 * Synthesize the mappings of an existing process from /proc.  A process
 * whose main thread has exited (pthread_exit) shows empty maps under its
 * pid: any live thread's view is the same address space.
 */
void proc_synthesize_maps(struct collector *col, pid_t pid)
{
	char path[96];
	DIR *d;
	struct dirent *e;

	synthesize_comms(col, pid);
	proc_read_cmdline(col, pid);
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

int proc_list_tids(pid_t pid, pid_t **tids, size_t *n)
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

int proc_thread_wait(pid_t pid, pid_t tid, char *state, uint64_t *pc)
{
	char path[96], line[512];
	struct task_stat ts;
	unsigned long long v[9];
	FILE *f;
	int n;

	*state = 0;
	*pc = 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid,
		 (int)tid);
	if (read_task_stat(path, &ts))
		return -1;
	*state = ts.state;
	/* "NR ARG1..ARG6 SP PC" in a system call, "-1 SP PC" blocked
	 * outside one, "running" else. */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid,
		 (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fgets(line, sizeof(line), f) ? sscanf(line, "%lli %llx %llx %llx "
		"%llx %llx %llx %llx %llx", &v[0], &v[1], &v[2], &v[3], &v[4],
		&v[5], &v[6], &v[7], &v[8]) : 0;
	fclose(f);
	if (n == 9)
		*pc = v[8];
	else if (n == 3 && (long long)v[0] == -1)
		*pc = v[2];
	return 0;
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
 * A kernel thread has no user mode, our own process would sample the
 * profiler, and a zombie runs no more: each would otherwise end in 0
 * samples and status 0.  kprofile -p only waits for PID to exit (attach
 * 0), so it needs PID alive and nothing more.
 */
int proc_check_target(pid_t pid, const char *tool, int attach,
		      struct proc_target *t)
{
	char path[64];
	struct task_stat ts;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_task_stat(path, &ts))
		return prof_fail(PROF_ENOENT, "no process %d", (int)pid);
	snprintf(t->comm, sizeof(t->comm), "%s", ts.comm);
	t->tid = live_thread(pid);
	if (!t->tid)
		return prof_fail(PROF_ENOENT, "cannot attach to process %d "
				 "(%s): it has exited (zombie)", (int)pid,
				 ts.comm);
	if (!attach)
		return 0;
	if (ts.flags & PF_KTHREAD)
		return prof_fail(PROF_EINVAL, "cannot attach to process %d "
				 "(%s): it is a kernel thread: use kprofile",
				 (int)pid, ts.comm);
	if (status_field(pid, "Tgid") == (long)getpid())
		return prof_fail(PROF_EINVAL, "cannot attach to process %d: "
				 "it is %s itself", (int)pid, tool);
	return 0;
}

/* A bare EACCES says neither whose process it is nor what to do. */
int proc_refused(pid_t pid, const char *tool, const struct proc_target *t)
{
	long uid = status_field(pid, "Uid");

	if (uid >= 0 && uid != (long)getuid()) {
		char them[64], us[64];

		user_name(uid, them, sizeof(them));
		user_name((long)getuid(), us, sizeof(us));
		return prof_fail(PROF_EPERM, "cannot attach to process %d "
				 "(%s): permission denied: it runs as user "
				 "'%s' (uid %ld), %s as '%s' (uid %ld): run %s "
				 "as that user or as root", (int)pid, t->comm,
				 them, uid, tool, us, (long)getuid(),
				 tool);
	}
	return prof_fail(PROF_EPERM, "cannot attach to process %d (%s): "
			 "permission denied: the kernel refuses this user "
			 "ptrace access to it (a program that changed its "
			 "credentials, or a security policy): run %s as root",
			 (int)pid, t->comm, tool);
}

/* fn(col, pid) for every process in /proc. */
static void each_process(struct collector *col,
			 void (*fn)(struct collector *, pid_t))
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		long pid;

		if (!parse_int(e->d_name, 1, INT_MAX, &pid))
			fn(col, (pid_t)pid);
	}
	closedir(d);
}

void proc_synthesize_names(struct collector *col)
{
	each_process(col, synthesize_comms);
}

void proc_synthesize_all(struct collector *col)
{
	each_process(col, proc_synthesize_maps);
}
