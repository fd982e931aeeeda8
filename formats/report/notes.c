/* SPDX-License-Identifier: MIT */
/*
 * The report's notes (report.h: struct report_note): added while the
 * report is built, each where what it says is found out, then put in
 * the text report's order with the notes of the figures
 * (report_notes_finish()).  No writer recounts what a note says.
 */
#include <stdlib.h>
#include <string.h>

#include "common/profile/idle.h"
#include "common/util/array.h"
#include "common/util/error.h"
#include "report_int.h"

struct report_note *report_note_add(struct report *r,
				    enum report_note_kind kind,
				    const char *subject, const char *detail)
{
	struct priv *pv = r->priv;
	struct report_note *n;

	if (ALLOC_GROW(r->notes, r->nnotes + 1, pv->alloc_notes))
		return NULL;
	n = &r->notes[r->nnotes++];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->subject = subject;
	n->detail = detail;
	return n;
}

int report_note_has(const struct report *r, enum report_note_kind kind,
		    const char *subject)
{
	size_t i;

	for (i = 0; i < r->nnotes; i++)
		if (r->notes[i].kind == kind &&
		    !strcmp(r->notes[i].subject, subject))
			return 1;
	return 0;
}

void report_note_skipped(struct report *r, const char *path,
			 const char *kind)
{
	const char *kept;

	if (report_note_has(r, REPORT_NOTE_SKIPPED, path))
		return;
	/* Out of memory only loses the note: the file is skipped anyway. */
	kept = report_pool_dup(r, path);
	if (kept)
		report_note_add(r, REPORT_NOTE_SKIPPED, kept, kind);
}

/* A note of a figure, at the end of the list; NULL: out of memory. */
static struct report_note *add_count(struct report *r,
				     enum report_note_kind kind,
				     uint64_t count, double percent)
{
	struct report_note *n = report_note_add(r, kind, NULL, NULL);

	if (n) {
		n->count = count;
		n->percent = percent;
	}
	return n;
}

/* Derived statistics asked for whose inputs the profile lacks. */
static int underived_notes(struct report *r)
{
	const struct profile *p = r->prof;
	size_t s, k;

	for (s = 0; s < r->nstats; s++) {
		const struct prof_stat *st = &p->stats[s];
		int found = 0;

		if (!(st->flags & PROF_STAT_DERIVED))
			continue;
		if (!strcmp(st->name, "freq")) {
			if (r->freq_stat < 0 &&
			    !report_note_add(r, REPORT_NOTE_NO_FREQ, st->name,
					     NULL))
				return -PROF_ENOMEM;
			continue;
		}
		for (k = 0; k < r->nratios; k++)
			found |= r->ratios[k].name == st->name;
		if (!found &&
		    !report_note_add(r, REPORT_NOTE_NO_RATIO, st->name, NULL))
			return -PROF_ENOMEM;
	}
	return 0;
}

static int code_view(const struct report *r)
{
	return r->opt.view == REPORT_BLOCKS || r->opt.view == REPORT_ASM ||
	       r->opt.view == REPORT_BUCKETS;
}

/* The notes of the statistics and of decoding, in the text's order. */
static int head_notes(struct report *r)
{
	int err = underived_notes(r);

	if (err)
		return err;
	if (r->opt.average && r->freq_stat < 0 &&
	    !add_count(r, REPORT_NOTE_NO_AVERAGE, 0, 0))
		return -PROF_ENOMEM;
	if (r->undecoded_kernel && code_view(r) &&
	    !add_count(r, REPORT_NOTE_UNDECODED_KERNEL, r->undecoded_kernel, 0))
		return -PROF_ENOMEM;
	if (r->undecoded && r->freq_shown &&
	    !add_count(r, REPORT_NOTE_UNDECODED, r->undecoded, 0))
		return -PROF_ENOMEM;
	return 0;
}

/*
 * The notes of the whole profile after those of the objects: anonymous
 * code, objects without a path, the idle task, and a kernel routine
 * among the first rows that re-enables interrupts at the top, where
 * timer-driven samples wait while interrupts are off (skid).
 */
static int tail_notes(struct report *r, size_t nunreadable)
{
	const struct profile *p = r->prof;
	uint64_t all = r->nstats ? r->total_samples[0] : 0, idle;
	size_t i;

	if (r->nstats && r->total_weight[0] &&
	    100.0 * (double)r->anon_weight / (double)r->total_weight[0] >= 1 &&
	    !add_count(r, REPORT_NOTE_ANONYMOUS, 0, 100.0 *
		       (double)r->anon_weight / (double)r->total_weight[0]))
		return -PROF_ENOMEM;
	if (r->unresolved_objects > nunreadable &&
	    !add_count(r, REPORT_NOTE_UNRESOLVED,
		       r->unresolved_objects - nunreadable, 0))
		return -PROF_ENOMEM;
	if (p->idle_excluded) {
		if (!add_count(r, REPORT_NOTE_IDLE_EXCLUDED, p->idle_dropped,
			       0))
			return -PROF_ENOMEM;
	} else if (all && (idle = profile_idle_samples(p, 0)) * 10 >= all &&
		   !add_count(r, REPORT_NOTE_IDLE, idle,
			      100.0 * (double)idle / (double)all)) {
		return -PROF_ENOMEM;
	}
	/* The first rows: in the asm view, of headings and instructions. */
	for (i = 0; i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];
		const size_t *pos = ((struct priv *)r->priv)->asm_pos;

		if ((pos ? pos[i] : i) >= 3)
			break;
		if (row->kind != ROW_PROCEDURE || !row->procedure ||
		    !row->object || strcmp(row->object, "[kernel.kallsyms]") ||
		    (!strstr(row->procedure, "irq_enable") &&
		     !strstr(row->procedure, "irqrestore")))
			continue;
		return report_note_add(r, REPORT_NOTE_IRQ_SKID,
				       row->procedure, NULL) ? 0 :
		       -PROF_ENOMEM;
	}
	return 0;
}

/* How many globs a -ra list has. */
static size_t count_patterns(const char *list)
{
	size_t n = 1;

	for (; *list; list++)
		n += *list == ',';
	return n;
}

int report_notes_finish(struct report *r)
{
	struct report_note *found = r->notes;
	size_t nfound = r->nnotes, nunreadable = 0, i, k;
	int kind, err;

	r->ra_patterns = r->prof->ra_routines ?
			 count_patterns(r->prof->ra_routines) : 0;
	/* The notes found while building come after the head's, kind by
	 * kind, each kind in the order found. */
	r->notes = NULL;
	r->nnotes = 0;
	((struct priv *)r->priv)->alloc_notes = 0;
	err = head_notes(r);
	for (kind = REPORT_NOTE_STALE; !err && kind <= REPORT_NOTE_UNMATCHED;
	     kind++) {
		for (i = 0; i < nfound && !err; i++) {
			struct report_note *n;

			if (found[i].kind != (enum report_note_kind)kind)
				continue;
			n = report_note_add(r, found[i].kind, NULL, NULL);
			if (!n) {
				err = -PROF_ENOMEM;
				break;
			}
			*n = found[i];
			nunreadable += kind == REPORT_NOTE_UNREADABLE;
			/* The unreadable note says why already. */
			for (k = 0; kind == REPORT_NOTE_SKIPPED && k < nfound;
			     k++)
				n->repeats |= found[k].kind ==
					      REPORT_NOTE_UNREADABLE &&
					      !strcmp(found[k].subject,
						      n->subject);
		}
	}
	free(found);
	return err ? err : tail_notes(r, nunreadable);
}
