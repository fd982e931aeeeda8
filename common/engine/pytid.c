/* SPDX-License-Identifier: MIT */
/*
 * Which native thread a thread state is (pyframes_int.h).  3.11 on keep
 * the kernel's thread id in the thread state (native_thread_id).  3.9
 * and 3.10 keep only thread_id, the pthread_t of the thread that made
 * it: with glibc (and musl) the address of the C library's struct
 * pthread, which holds the kernel's thread id at an offset that is the
 * C library's business, not Python's.
 *
 * That offset is found in the process, not assumed: the main thread's
 * pthread_t is _PyRuntime.main_thread, and its kernel thread id is the
 * process id; the place in the first TID_WINDOW bytes of its struct
 * pthread that holds the process id (a 32-bit word, aligned) is where
 * every thread's id is.  Exactly one place must hold it: where several
 * do (a value that happens to equal the process id), the process is
 * refused rather than guessed at.  (glibc 2.36 on x86-64: 720.)
 */
#include <inttypes.h>

#include "pyframes_int.h"
#include "common/util/error.h"

/* Bytes of the main thread's struct pthread looked through: inside it
 * (glibc's is over 2 kB), and holding its tid in the C libraries known
 * (glibc: 720, musl: under 64). */
#define TID_WINDOW 1024

int py_tid_calibrate(struct py_proc *p)
{
	const struct layout *l = p->l;
	uint8_t buf[8], w[TID_WINDOW];
	uint32_t at = NONE, i;
	unsigned places = 0;
	uint64_t main;
	int rc;

	if (p->tid_off != NONE)
		return 0;
	rc = py_mem_read(p, p->info.runtime + l->rt_main_thread, buf, 8,
			 "_PyRuntime.main_thread");
	if (rc)
		return rc;
	main = py_word(buf, 8, 0, 8);
	if (!main)
		return prof_fail(PROF_ENOENT, "process %d: CPython has not "
				 "started (no main thread yet)",
				 (int)p->info.pid);
	rc = py_ptr_ok(main) ? py_mem_read(p, main, w, sizeof(w),
					   "the main thread's pthread_t") :
			       -PROF_EFORMAT;
	if (rc == -PROF_EFORMAT)
		return prof_fail(PROF_EUNAVAIL, "CPython 3.%u: the main "
				 "thread's pthread_t %#" PRIx64 " cannot be "
				 "read (process %d)", l->minor, main,
				 (int)p->info.pid);
	if (rc)
		return rc;
	for (i = 0; i < TID_WINDOW; i += 4)
		if (py_word(w, sizeof(w), i, 4) == (uint32_t)p->info.pid) {
			at = i;
			places++;
		}
	if (places != 1)
		return prof_fail(PROF_EUNAVAIL, "CPython 3.%u: cannot tell "
				 "where the C library keeps a thread's id (%u "
				 "places in the first %d bytes of the main "
				 "thread's pthread_t hold its id; process %d)",
				 l->minor, places, TID_WINDOW,
				 (int)p->info.pid);
	p->tid_off = at;
	return 0;
}

int py_tstate_tid(struct py_proc *p, const uint8_t *t, pid_t *tid)
{
	const struct layout *l = p->l;
	uint64_t pthread;
	uint8_t buf[4];
	int rc;

	*tid = 0;
	if (l->ts_native_tid != NONE) {
		*tid = (pid_t)py_word(t, p->ts_len, l->ts_native_tid, 8);
		return 0;
	}
	rc = py_tid_calibrate(p);
	if (rc)
		return rc;
	pthread = py_word(t, p->ts_len, l->ts_thread_id, 8);
	if (!py_ptr_ok(pthread))
		return 0;
	/* A thread gone may have taken its struct pthread with it. */
	rc = py_mem_read(p, pthread + p->tid_off, buf, sizeof(buf),
			 "a pthread_t");
	if (!rc)
		*tid = (pid_t)py_word(buf, sizeof(buf), 0, 4);
	return rc == -PROF_EFORMAT ? 0 : rc;
}
