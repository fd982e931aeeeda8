#!/usr/bin/env python3
"""big.c for the cc1 workloads of bench/perfdata.sh and bench/callstacks.sh:
N functions (argv[1]) of six shapes, each but the first calling an
earlier one, from a seeded generator (the same file every time)."""
import random, sys
n = int(sys.argv[1])
r = random.Random(1)
o = []
w = o.append
w("#include <stddef.h>\n#include <string.h>\n#include <math.h>\n"
  "#include <stdlib.h>\n")
w("struct node { struct node *next; int key; double val; char name[16]; };\n")
w("struct vec { double x, y, z; };\n")
w("static inline struct vec vadd(struct vec a, struct vec b) "
  "{ struct vec r = { a.x + b.x, a.y + b.y, a.z + b.z }; return r; }\n")
w("static inline double vdot(struct vec a, struct vec b) "
  "{ return a.x * b.x + a.y * b.y + a.z * b.z; }\n")
for i in range(n):
    k = i % 6
    callee = "f%d" % r.randrange(i) if i else None
    if k == 0:
        w("int f%d(int *a, int n) {\n  int s = %d;\n"
          "  for (int i = 0; i < n; i++) {\n" % (i, r.randrange(100)))
        for j in range(r.randrange(3, 9)):
            w("    if (a[i] %% %d == %d) s += a[i] * %d; "
              "else s ^= a[i] >> %d;\n" % (r.randrange(2, 17),
                r.randrange(2), r.randrange(1, 99), r.randrange(1, 7)))
        w("  }\n")
        if callee:
            w("  s += %s((int *)a, n / 2);\n" % callee)
        w("  return s;\n}\n")
    elif k == 1:
        w("int f%d(int *a, int n) {\n  int s = 0;\n"
          "  for (int i = 0; i < n; i++)\n    switch (a[i] & 63) {\n" % i)
        for c in r.sample(range(64), r.randrange(8, 30)):
            w("    case %d: s += %d * a[i] - %d; break;\n" %
              (c, r.randrange(1, 50), r.randrange(100)))
        w("    default: s--;\n    }\n")
        if callee:
            w("  if (s > %d) s -= %s(a + 1, n - 1);\n" %
              (r.randrange(1000), callee))
        w("  return s;\n}\n")
    elif k == 2:
        w("int f%d(int *a, int n) {\n  struct node *h = NULL;\n"
          "  int s = 0;\n" % i)
        w("  for (int i = 0; i < n; i++) {\n"
          "    struct node *p = malloc(sizeof *p);\n    if (!p) break;\n"
          "    p->key = a[i] * %d;\n    p->val = a[i] / %d.0;\n"
          "    memset(p->name, %d, sizeof p->name);\n    p->next = h;\n"
          "    h = p;\n  }\n" % (r.randrange(1, 9), r.randrange(2, 9),
                                 r.randrange(65, 90)))
        w("  while (h) {\n    struct node *q = h->next;\n"
          "    s += h->key + (int)h->val + h->name[%d];\n    free(h);\n"
          "    h = q;\n  }\n" % r.randrange(16))
        w("  return s + %s(a, n);\n}\n" % callee if callee else
          "  return s;\n}\n")
    elif k == 3:
        w("int f%d(int *a, int n) {\n  struct vec acc = { 0, 0, 0 };\n"
          "  for (int i = 0; i + 2 < n; i += 3) {\n"
          "    struct vec v = { a[i], a[i + 1], a[i + 2] };\n" % i)
        for j in range(r.randrange(2, 6)):
            w("    acc = vadd(acc, v);\n"
              "    v.x = v.x * %d.5 + sqrt(fabs(v.y));\n"
              "    acc.z += vdot(acc, v) / %d.0;\n" %
              (r.randrange(1, 9), r.randrange(2, 9)))
        w("  }\n")
        if callee:
            w("  acc.x += %s(a, n);\n" % callee)
        w("  return (int)(acc.x + acc.y + acc.z);\n}\n")
    elif k == 4:
        w("int f%d(int *a, int n) {\n  char buf[64];\n  int s = 0;\n"
          "  for (int i = 0; i < n && i < 60; i++) "
          "buf[i] = (char)('a' + a[i] %% 26);\n"
          "  buf[n < 60 ? (n > 0 ? n : 0) : 60] = 0;\n" % i)
        for j in range(r.randrange(2, 6)):
            w("  if (strstr(buf, \"%s\")) s += %d;\n"
              "  s += (int)strlen(buf) * %d;\n" %
              ("".join(r.choice("abcdefgh") for _ in range(3)),
               r.randrange(100), r.randrange(1, 9)))
        if callee:
            w("  s += %s(a, n - 1);\n" % callee)
        w("  return s;\n}\n")
    else:
        m = r.randrange(4, 9)
        w("int f%d(int *a, int n) {\n  int m[%d][%d] = {{0}};\n"
          "  for (int i = 0; i < %d; i++)\n"
          "    for (int j = 0; j < %d; j++)\n"
          "      m[i][j] = a[(i * %d + j) %% (n ? n : 1)] + i - j;\n" %
          (i, m, m, m, m, m))
        w("  for (int k = 0; k < %d; k++)\n"
          "    for (int i = 0; i < %d; i++)\n"
          "      for (int j = 0; j < %d; j++)\n"
          "        m[i][j] += m[i][k] * m[k][j];\n" % (m, m, m))
        w("  int s = 0;\n  for (int i = 0; i < %d; i++) s += m[i][i];\n" % m)
        if callee:
            w("  s += %s(a, n);\n" % callee)
        w("  return s;\n}\n")
sys.stdout.write("".join(o))
