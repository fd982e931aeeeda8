// SPDX-License-Identifier: MIT
/*
 * C++ and Rust names as perf shows them, with libiberty's demanglers
 * (contract of sym_demangle() in symbolize_int.h).  Uses only the string
 * pool.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "symbolize_int.h"

/*
 * Rust, both manglings: legacy (_ZN...17h<16 hex>E, Itanium-shaped) and
 * v0 (_R...).  libiberty's Rust demangler without DMGL_VERBOSE leaves
 * out what perf leaves out: the legacy hash (::h<16 hex>), v0's crate
 * disambiguators, and any suffix LLVM added after a '.' (.llvm.<digits>
 * of ThinLTO's promoted locals).  False when name is no Rust symbol;
 * *pooled is NULL when out of memory.
 */
static bool rust_name(struct strpool *sp, const char *name,
		      const char **pooled)
{
	char *d;

	/* A legacy name is also valid C++: the Rust demangler, tried
	 * first, takes only those ending in the hash component. */
	d = rust_demangle(name, DMGL_NO_OPTS);
	if (!d)
		return false;
	*pooled = strpool_add(sp, d);
	free(d);
	return true;
}

const char *sym_demangle(struct strpool *sp, const char *name)
{
	const char *pooled = NULL, *clone;
	char *full, *d, *buf = NULL;

	if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	if (rust_name(sp, name, &pooled) || name[1] == 'R')
		return pooled;
	/* Only a name that demangles whole (a clone suffix included) is
	 * C++: without DMGL_PARAMS the demangler stops after the name and
	 * would take "_Znwm@plt" or "_ZN3foo3barEvXYZ" too. */
	full = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
	if (!full)
		return NULL;
	free(full);
	/* No DMGL_PARAMS: no parameter list, no return type. */
	d = cplus_demangle(name, DMGL_AUTO | DMGL_ANSI);
	if (!d)
		return NULL;
	/* A clone (.cold, .isra.0, .constprop.0, .part.0) keeps its
	 * suffix, as in C: it is other code than the function's body. */
	clone = strchr(name, '.');
	if (clone && asprintf(&buf, "%s%s", d, clone) >= 0)
		pooled = strpool_add(sp, buf);
	else if (!clone)
		pooled = strpool_add(sp, d);
	free(buf);
	free(d);
	return pooled;
}
