/*
 * callstack - a call graph known by construction, for the call-stack
 * views (tests/0670-report-stacks.bats).  The tests never profile it:
 * tests/tools/mkcallstacks writes profiles whose stacks are frames of this
 * binary, so every share is exact.  Guarantees, at -O1:
 *   - a, b, c, rec and leaf are separate (noinline) functions;
 *   - a and b call leaf; c calls leaf through mid, which is always
 *     inlined into c (so the call to leaf is in mid's inline range);
 *   - rec calls itself until its depth is 0, then leaf;
 *   - no call is a tail call (each is followed by a store to sink).
 */
volatile unsigned long sink;

__attribute__((noinline)) void leaf(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) void a(void)
{
	leaf(1000);
	sink++;
}

__attribute__((noinline)) void b(void)
{
	leaf(2000);
	sink++;
}

static inline __attribute__((always_inline)) void mid(unsigned long n)
{
	leaf(n);
	sink ^= n;
}

__attribute__((noinline)) void c(void)
{
	mid(3000);
	sink++;
}

__attribute__((noinline)) void rec(int depth)
{
	if (depth > 0)
		rec(depth - 1);
	else
		leaf(10);
	sink++;
}

int main(void)
{
	a();
	b();
	c();
	rec(3);
	return 0;
}
