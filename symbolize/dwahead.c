// SPDX-License-Identifier: MIT
/*
 * DWARF opened ahead, on a thread of its own: a report that will name
 * code in several objects asks for their DWARF first (libc's debug file
 * takes a sixth of the blocks view to open: libdwarf inflates the whole
 * of its .debug_info), then decodes the other objects' code while the
 * thread opens it.  The thread runs dwinfo_open() on each file in the
 * order asked, then dwinfo_lookup() on the addresses the job names, so
 * that the CUs they fall in are read there too, and nothing else.
 *
 * What makes it safe: a job's dwinfo (its libdwarf handle, its file
 * descriptor, what libdwarf allocated) is touched by one thread at a
 * time, and handed over under the mutex: the thread makes it, then
 * dwinfo_ahead_take() gives it to its caller, who alone uses it from then
 * on.  libdwarf keeps its state per handle, and so do zlib and libelf
 * (dwcheck_fd()); their globals, libdwarf's allocation switch
 * (dwarf_set_de_alloc_flag()) and libelf's version (elf_version(), which
 * the library calls only through buildid_elf_version(), once), are set
 * by dwinfo_init() before the thread starts.  The thread interns the
 * names of the CUs it reads into a pool of the job's own; the taker
 * moves them into its pool (dwinfo_adopt()) before it uses the dwinfo,
 * and releases the job's.  A job the thread has not started when it is
 * wanted is opened by its taker there and then, into its pool.  The
 * thread blocks every signal, so a handler or a blocked section of the
 * main thread's works as in a program of one thread.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize_int.h"

enum { JOB_QUEUED, JOB_RUNNING, JOB_DONE, JOB_TAKEN };

struct dwjob {
	char *path;
	uint64_t *addrs;	/* whose CUs the thread reads too */
	size_t naddrs;
	struct strpool own;	/* the thread's strings, until taken */
	struct strpool *sp;	/* the taker's */
	struct dwinfo *dw;
	int ret;
	int state;
};

struct dwahead {
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* a job done, a job queued, stop */
	pthread_t thread;
	bool running;		/* thread is to be joined */
	bool stop;
	struct dwjob **jobs;
	size_t njobs, ajobs, next;	/* jobs[next]: the thread's next */
};

/* The next job queued, marked running; NULL once stopped. */
static struct dwjob *next_job(struct dwahead *a)
{
	struct dwjob *j = NULL;

	pthread_mutex_lock(&a->lock);
	while (!a->stop && !j) {
		while (a->next < a->njobs &&
		       a->jobs[a->next]->state != JOB_QUEUED)
			a->next++;
		if (a->next < a->njobs) {
			j = a->jobs[a->next++];
			j->state = JOB_RUNNING;
		} else {
			pthread_cond_wait(&a->cond, &a->lock);
		}
	}
	pthread_mutex_unlock(&a->lock);
	return j;
}

static void *run(void *arg)
{
	struct dwahead *a = arg;
	struct dwjob *j;

	while ((j = next_job(a)) != NULL) {
		struct dwinfo *dw;
		struct dwhit hit;
		int ret = dwinfo_open(&dw, &j->own, j->path);
		size_t i;

		/* A CU is read once, whoever asks first: here, its
		 * strings into the job's own pool. */
		for (i = 0; dw && i < j->naddrs; i++)
			dwinfo_lookup(dw, j->addrs[i], &hit);

		pthread_mutex_lock(&a->lock);
		j->dw = dw;
		j->ret = ret;
		j->state = JOB_DONE;
		pthread_cond_broadcast(&a->cond);
		pthread_mutex_unlock(&a->lock);
	}
	return NULL;
}

static void job_free(struct dwjob *j)
{
	dwinfo_free(j->dw);	/* opened, never taken */
	strpool_release(&j->own);
	free(j->addrs);
	free(j->path);
	free(j);
}

int dwinfo_ahead_add(struct dwahead **pa, struct strpool *sp, const char *path,
		     const uint64_t *addrs, size_t naddrs, struct dwjob **out)
{
	struct dwahead *a = *pa;
	struct dwjob *j;

	*out = NULL;
	/* Before any thread: the globals libdwarf and libelf keep. */
	dwinfo_init();
	if (!a) {
		a = calloc(1, sizeof(*a));
		if (!a)
			return SYM_ENOMEM;
		pthread_mutex_init(&a->lock, NULL);
		pthread_cond_init(&a->cond, NULL);
		*pa = a;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return SYM_ENOMEM;
	strpool_init(&j->own);
	j->sp = sp;
	j->path = strdup(path);
	j->addrs = malloc((naddrs ? naddrs : 1) * sizeof(*addrs));
	if (!j->path || !j->addrs) {
		job_free(j);
		return SYM_ENOMEM;
	}
	memcpy(j->addrs, addrs, naddrs * sizeof(*addrs));
	j->naddrs = naddrs;
	pthread_mutex_lock(&a->lock);
	if (ALLOC_GROW(a->jobs, a->njobs + 1, a->ajobs)) {
		pthread_mutex_unlock(&a->lock);
		job_free(j);
		return SYM_ENOMEM;
	}
	a->jobs[a->njobs++] = j;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	/* No thread: each job is opened when it is taken.  The thread
	 * takes no signal: they stay the main thread's, as without it. */
	if (!a->running) {
		sigset_t all, old;

		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		a->running = !pthread_create(&a->thread, NULL, run, a);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	*out = j;
	return SYM_OK;
}

int dwinfo_ahead_take(struct dwahead *a, struct dwjob *j, struct dwinfo **dw)
{
	int ret;
	bool mine;

	pthread_mutex_lock(&a->lock);
	mine = j->state == JOB_QUEUED;
	if (mine)
		j->state = JOB_TAKEN;
	while (!mine && j->state != JOB_DONE)
		pthread_cond_wait(&a->cond, &a->lock);
	if (!mine) {
		j->state = JOB_TAKEN;
		*dw = j->dw;
		j->dw = NULL;
		ret = j->ret;
	}
	pthread_mutex_unlock(&a->lock);
	/* Its strings into the taker's pool (out of memory: opened again,
	 * into the taker's pool). */
	if (!mine && *dw && dwinfo_adopt(*dw, j->sp)) {
		dwinfo_free(*dw);
		mine = true;
	}
	strpool_release(&j->own);
	strpool_init(&j->own);
	if (mine)
		ret = dwinfo_open(dw, j->sp, j->path);
	return ret;
}

void dwinfo_ahead_free(struct dwahead *a)
{
	size_t i;

	if (!a)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	if (a->running)
		pthread_join(a->thread, NULL);
	for (i = 0; i < a->njobs; i++)
		job_free(a->jobs[i]);
	free(a->jobs);
	pthread_cond_destroy(&a->cond);
	pthread_mutex_destroy(&a->lock);
	free(a);
}
