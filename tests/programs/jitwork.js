// jitwork.js - a JavaScript workload with known hot functions, for
// node --perf-basic-prof.
//
// Usage: node --perf-basic-prof jitwork.js [MILLISECONDS]   (default 2000)
//
// Guarantees: hotA and hotB are the hot functions (V8 compiles them, so
// their samples are in generated code that only the perf map names);
// main alternates hotA for 3 ms and hotB for 1 ms of wall time until
// MILLISECONDS have passed, so hotA has about three times hotB's
// samples.  Prints one number.
'use strict';

function hotA(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s = (s + i * i) % 1000003;
  return s;
}

function hotB(n) {
  let s = 1;
  for (let i = 0; i < n; i++) s = (s * 31 + i) % 999983;
  return s;
}

function runFor(f, ms) {
  const end = process.hrtime.bigint() + BigInt(ms) * 1000000n;
  let s = 0;
  while (process.hrtime.bigint() < end) s += f(20000);
  return s;
}

const total = Number(process.argv[2] || 2000);
const start = Date.now();
let sum = 0;
while (Date.now() - start < total) {
  sum += runFor(hotA, 3);
  sum += runFor(hotB, 1);
}
console.log(sum);
