/* SPDX-License-Identifier: MIT */
/*
 * pystack: the Python call stacks of a running CPython process, read
 * from outside it by common/engine/pyframes.c (tests/1540-pyframes.bats).
 *
 *   pystack [-e] [-t TID] [--wait [--copy]] PID
 *
 * prints a first line "# CPython X.Y.Z IMAGE", then for each thread of
 * PID (by thread id; only TID with -t):
 *
 *   thread TID
 *   QUALNAME (FILE:LINE)        one per frame, innermost first
 *   = end                       the whole chain was read
 *   = stopped: REASON           the walk stopped there
 *   = no Python: REASON         the thread has no Python thread state
 *
 * LINE is "?" for an instruction without a location; a frame whose code
 * object cannot be read is "? (REASON)".  -e marks the frames that are
 * the first of a C call of the eval loop with " [entry]" and shows an
 * entry frame that has not started as "(starting) QUALNAME (FILE:LINE)".
 * --wait: after attaching, print "# attached" and read a line from
 * standard input before reading the stacks (a test ends the process in
 * between).  --copy (with -t TID and --wait): copy TID's user stack
 * when attaching, as a sample would (from the stack pointer its system
 * call left in /proc/PID/task/TID/syscall: the thread must be in one),
 * and read its stack after the line as the sample of that copy
 * (py_sample_stack()).
 *
 * Exit status: 0 every walk read its whole chain; 3 one stopped early;
 * 1 no CPython could be read (not one, a version not known, the process
 * gone, at any point), the reason on standard error in one line; 2 usage.
 *
 *   pystack --layout 3.MINOR   the layout table pylayout.c holds for that
 *                              version, "NAME VALUE" per line (as
 *                              tests/tools/pyoffsets.c prints CPython's)
 *   pystack --layout-of PID    the layout it reads PID by: the table, with
 *                              what the process publishes in place (3.13)
 *   pystack --lines [3.MINOR]  line tables of CPython 3.MINOR (3.11 when
 *                              not said: location tables) on standard
 *                              input, one per line "FIRSTLINENO NUNITS
 *                              HEX": prints the line of each code unit,
 *                              space-separated (-1: none)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "common/engine/proc.h"
#include "common/engine/pyframes.h"
#include "common/util/error.h"
#include "common/util/parse.h"

#define MAX_FRAMES 4096

static int usage(void)
{
	fprintf(stderr, "usage: pystack [-e] [-t TID] [--wait [--copy]] PID\n"
		"       pystack --layout 3.MINOR\n"
		"       pystack --layout-of PID\n"
		"       pystack --lines [3.MINOR]\n");
	return 2;
}

static int fail(int rc)
{
	fprintf(stderr, "pystack: %s\n", prof_error(rc));
	return 1;
}

static void print_frame(struct py_proc *p, const struct py_frame *f,
			bool entries)
{
	struct py_code c;
	int rc;

	if (f->incomplete && !entries)
		return;
	if (!f->code) {
		/* A shim alone: an eval loop call with no frame yet. */
		printf("(eval loop entered, no frame)%s\n",
		       f->is_entry ? " [entry]" : "");
		return;
	}
	rc = py_code_info(p, f->code, f->instr, &c);
	if (rc) {
		printf("? (%s)", prof_error(rc));
	} else {
		printf("%s%s (%s:", f->incomplete ? "(starting) " : "",
		       c.qualname, c.filename);
		if (c.line < 0)
			printf("?)");
		else
			printf("%d)", c.line);
	}
	printf("%s\n", entries && f->is_entry ? " [entry]" : "");
}

/* One thread's stack: 0 read whole, 3 stopped early, 1 the process is
 * gone. */
static int print_thread(struct py_proc *p, pid_t tid, struct py_frame *fr,
			bool entries, const struct py_stack_copy *copy)
{
	size_t n, i;
	int rc;

	printf("thread %d\n", (int)tid);
	rc = py_sample_stack(p, tid, copy, fr, MAX_FRAMES, &n);
	if (py_exited(p))
		return 1;
	for (i = 0; i < n; i++) {
		print_frame(p, &fr[i], entries);
		if (py_exited(p))
			return 1;
	}
	if (!rc) {
		printf("= end\n");
		return 0;
	}
	if (rc == -PROF_ENOENT) {
		printf("= no Python: %s\n", prof_error(rc));
		return 0;
	}
	printf("= stopped: %s\n", prof_error(rc));
	return 3;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

#define COPY_LEN 32768		/* what uprofile -g copies of a stack */
#define COPY_PAGE 4096

/* Thread tid's user stack from the stack pointer of the system call it
 * is in, COPY_LEN bytes at most (up to the stack's end), into *copy. */
static int copy_stack(pid_t pid, pid_t tid, uint8_t *buf,
		      struct py_stack_copy *copy)
{
	struct iovec local[COPY_LEN / COPY_PAGE], remote[COPY_LEN / COPY_PAGE];
	unsigned long long sp = 0;
	char path[64], line[512];
	ssize_t got;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid,
		 (int)tid);
	f = fopen(path, "re");
	if (!f || !fgets(line, sizeof(line), f) ||
	    sscanf(line, "%*d %*x %*x %*x %*x %*x %*x %llx", &sp) != 1) {
		if (f)
			fclose(f);
		return prof_fail(PROF_EIO, "thread %d: no stack pointer in "
				 "%s (not in a system call)", (int)tid, path);
	}
	fclose(f);
	/* A page at a time: the read stops at the stack's end. */
	for (i = 0; i < COPY_LEN / COPY_PAGE; i++) {
		uint64_t at = (sp & ~(uint64_t)(COPY_PAGE - 1)) +
			      i * COPY_PAGE;
		size_t off = i ? 0 : (size_t)(sp - at);

		local[i] = (struct iovec){ buf + (i ? i * COPY_PAGE -
						     (size_t)(sp % COPY_PAGE) :
						     0), COPY_PAGE - off };
		remote[i] = (struct iovec){ (void *)(uintptr_t)(at + off),
					    COPY_PAGE - off };
	}
	got = process_vm_readv(pid, local, i, remote, i, 0);
	if (got <= 0)
		return prof_fail(PROF_EIO, "cannot read the stack of thread "
				 "%d at %#llx", (int)tid, sp);
	*copy = (struct py_stack_copy){ .sp = sp, .data = buf,
					.len = (size_t)got };
	return 0;
}

static int stacks(pid_t pid, pid_t only, bool entries, bool wait,
		  bool copy_it)
{
	static uint8_t copied[COPY_LEN];
	struct py_stack_copy copy, *at = NULL;
	struct py_frame *fr = calloc(MAX_FRAMES, sizeof(*fr));
	const struct py_info *info;
	struct py_proc *p = NULL;
	pid_t *tids = NULL;
	size_t ntids = 0, i;
	int rc, status = 0;
	char v[32];

	if (!fr)
		return fail(-PROF_ENOMEM);
	rc = py_open(pid, &p);
	if (rc) {
		free(fr);
		return fail(rc);
	}
	info = py_info(p);
	py_version_text(info->version, v, sizeof(v));
	printf("# CPython %s %s\n", v, info->image);
	if (copy_it) {
		rc = copy_stack(pid, only, copied, &copy);
		if (rc) {
			free(fr);
			py_close(p);
			return fail(rc);
		}
		at = &copy;
	}
	if (wait) {
		char line[64];

		printf("# attached\n");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			line[0] = '\0';
	}
	if (only) {
		tids = malloc(sizeof(*tids));
		if (tids)
			tids[ntids++] = only;
		rc = tids ? 0 : -PROF_ENOMEM;
	} else if (proc_list_tids(pid, &tids, &ntids)) {
		/* It was there when py_open() read it. */
		rc = prof_fail(PROF_ENOENT, "process %d has exited",
			       (int)pid);
	}
	if (!rc)
		qsort(tids, ntids, sizeof(*tids), cmp_pid);
	for (i = 0; !rc && i < ntids; i++) {
		int r = print_thread(p, tids[i], fr, entries, at);

		if (r == 1)
			rc = -PROF_ENOENT;
		else if (r > status)
			status = r;
	}
	if (rc)
		status = fail(rc);
	free(tids);
	free(fr);
	py_close(p);
	return status;
}

static int layout(const char *version)
{
	struct py_layout_value v[128];
	size_t n, i;
	long minor;

	if (strncmp(version, "3.", 2) ||
	    parse_int(version + 2, 0, 1000, &minor))
		return usage();
	n = py_layout_values((unsigned)minor, v, 128);
	if (!n) {
		fprintf(stderr, "pystack: no layout for CPython %s\n",
			version);
		return 1;
	}
	for (i = 0; i < n && i < 128; i++)
		printf("%s %" PRIu64 "\n", v[i].name, v[i].value);
	return 0;
}

static int layout_of(const char *arg)
{
	struct py_layout_value v[128];
	struct py_proc *p;
	size_t n, i;
	long pid;
	int rc;

	if (parse_int(arg, 1, INT32_MAX, &pid))
		return usage();
	rc = py_open((pid_t)pid, &p);
	if (rc)
		return fail(rc);
	n = py_proc_layout_values(p, v, 128);
	for (i = 0; i < n && i < 128; i++)
		printf("%s %" PRIu64 "\n", v[i].name, v[i].value);
	py_close(p);
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One "FIRSTLINENO NUNITS HEX" line: the line of each code unit in a
 * line table of CPython 3.minor. */
static int one_table(unsigned minor, char *line)
{
	char *first = strtok(line, " \n"), *units = strtok(NULL, " \n");
	char *hex = strtok(NULL, " \n");
	long firstlineno, nunits, u;
	uint8_t *t;
	size_t len, i;

	if (!hex)
		hex = "";
	if (!first || !units || parse_int(first, -1000000, 1000000000,
					   &firstlineno) ||
	    parse_int(units, 0, 1 << 24, &nunits) || strlen(hex) % 2)
		return -1;
	len = strlen(hex) / 2;
	t = malloc(len + 1);
	if (!t)
		return -1;
	for (i = 0; i < len; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			free(t);
			return -1;
		}
		t[i] = (uint8_t)(hi << 4 | lo);
	}
	for (u = 0; u < nunits; u++)
		printf("%s%d", u ? " " : "",
		       py_table_line(minor, t, len, (int)firstlineno,
				     (int32_t)u));
	printf("\n");
	free(t);
	return 0;
}

static int lines(const char *version)
{
	size_t size = 1 << 20;
	char *line;
	long minor;
	int rc = 0;

	if (strncmp(version, "3.", 2) ||
	    parse_int(version + 2, 0, 1000, &minor))
		return usage();
	if (!py_layout_values((unsigned)minor, NULL, 0)) {
		fprintf(stderr, "pystack: no layout for CPython %s\n",
			version);
		return 1;
	}
	line = malloc(size);
	if (!line)
		return fail(-PROF_ENOMEM);
	while (!rc && fgets(line, (int)size, stdin))
		if (one_table((unsigned)minor, line)) {
			fprintf(stderr, "pystack: bad line table input\n");
			rc = 1;
		}
	free(line);
	return rc;
}

int main(int argc, char **argv)
{
	bool entries = false, wait = false, copy = false;
	long pid, tid = 0;
	int i;

	if (argc == 3 && !strcmp(argv[1], "--layout"))
		return layout(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--layout-of"))
		return layout_of(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "--lines"))
		return lines("3.11");
	if (argc == 3 && !strcmp(argv[1], "--lines"))
		return lines(argv[2]);
	for (i = 1; i < argc - 1; i++) {
		if (!strcmp(argv[i], "-e"))
			entries = true;
		else if (!strcmp(argv[i], "--wait"))
			wait = true;
		else if (!strcmp(argv[i], "--copy"))
			copy = true;
		else if (!strcmp(argv[i], "-t") && i + 1 < argc - 1 &&
			 !parse_int(argv[i + 1], 1, INT32_MAX, &tid))
			i++;
		else
			return usage();
	}
	if (i != argc - 1 || parse_int(argv[i], 1, INT32_MAX, &pid) ||
	    (copy && (!tid || !wait)))
		return usage();
	return stacks((pid_t)pid, (pid_t)tid, entries, wait, copy);
}
