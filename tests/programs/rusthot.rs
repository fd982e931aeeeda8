// SPDX-License-Identifier: MIT
//
// rusthot [MS]: Rust names, for tests/0625-report-rust.bats (not built
// by make: the test builds it with rustc, --crate-name hot, -g -C
// opt-level=2, in both symbol manglings).
//
// For about MS ms of wall time (400) main calls the generic
// hot::numbers::accumulate for two types, Sum and Xor, in turn: two
// out-of-line instances whose legacy symbols differ only in their hash
// (two rows of one name), each with about half the samples.  Into each,
// rustc inlines the trait method of its type (<hot::numbers::Sum as
// hot::numbers::Acc>::add, <... Xor ...>::add), and into those the
// standard library's integer methods (wrapping_add, wrapping_mul,
// rotate_left) and Range's iterator: inlined frames named from DWARF's
// linkage names, mangled the same way.  Xor's also inlines hot_mix, an
// exported (#[no_mangle]) function of hot::numbers, whose DWARF entry
// has no linkage name: perf names it bare, as its symbol.  The loop reads i through a
// volatile load so that it is not folded into a formula (an unstable
// black_box would not build on older rustc).
mod numbers {
    pub trait Acc {
        fn add(&mut self, x: u64);
        fn get(&self) -> u64;
    }

    pub struct Sum(pub u64);
    pub struct Xor(pub u64);

    impl Acc for Sum {
        #[inline]
        fn add(&mut self, x: u64) {
            self.0 = self.0.wrapping_add(x.wrapping_mul(x));
        }
        fn get(&self) -> u64 {
            self.0
        }
    }

    impl Acc for Xor {
        #[inline]
        fn add(&mut self, x: u64) {
            self.0 ^= hot_mix(x).wrapping_mul(0x9e3779b97f4a7c15);
        }
        fn get(&self) -> u64 {
            self.0
        }
    }

    // An exported function: its symbol, and so its DWARF (which has
    // no linkage name), is its bare name, wherever rustc inlines it.
    #[no_mangle]
    pub extern "C" fn hot_mix(x: u64) -> u64 {
        x.rotate_left(7)
    }

    #[inline(never)]
    pub fn accumulate<A: Acc>(a: &mut A, n: u64) -> u64 {
        for i in 0..n {
            a.add(unsafe { std::ptr::read_volatile(&i) });
        }
        a.get()
    }
}

use numbers::*;

fn main() {
    let ms: u128 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(400);
    let start = std::time::Instant::now();
    let mut t = 0u64;
    while start.elapsed().as_millis() < ms {
        let mut s = Sum(0);
        let mut x = Xor(1);
        t = t.wrapping_add(accumulate(&mut s, 200000));
        t ^= accumulate(&mut x, 200000);
    }
    println!("{}", t);
}
