// SPDX-License-Identifier: MIT
//
// goswitch [MS]: a Go program that makes its runtime switch stacks, for
// MS milliseconds of wall time (default 1000).  Four goroutines
// (main.worker) each loop until then over:
//
//   - main.churn: 2000 allocations of 64 to 319 bytes kept in a list, so
//     the garbage collector runs all the time (its workers, assists and
//     sweeps on the thread's stack, through runtime.systemstack);
//   - main.deep: a recursion 64 frames deep with 256-byte frames, in a
//     goroutine of its own each time, whose stack grows (runtime.morestack);
//   - main.spin: a multiply-add loop, and time.Now (the vDSO, called on
//     the thread's stack);
//   - a channel round trip with a goroutine of its own (runtime.mcall,
//     parking).
//
// Prints "ok" at the end.  Built by the tests with `go build`; no module
// needed.
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

type node struct {
	next *node
	buf  []byte
}

//go:noinline
func churn(n int) *node {
	var head *node
	for i := 0; i < n; i++ {
		head = &node{next: head, buf: make([]byte, 64+i%256)}
	}
	return head
}

//go:noinline
func deep(n int) uint64 {
	var pad [32]uint64
	pad[n%32] = uint64(n)
	if n == 0 {
		return pad[0]
	}
	return deep(n-1) + pad[n%32]
}

//go:noinline
func spin(n int) uint64 {
	x := uint64(time.Now().UnixNano())
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

func worker(id int, until time.Time, wg *sync.WaitGroup, out *uint64) {
	defer wg.Done()
	for time.Now().Before(until) {
		keep := churn(2000)
		ch := make(chan uint64)
		go func() { ch <- deep(64) }()
		*out += spin(20000) + uint64(len(keep.buf)) + <-ch
	}
}

func main() {
	ms := 1000
	if len(os.Args) > 1 {
		var err error
		if ms, err = strconv.Atoi(os.Args[1]); err != nil || ms < 0 {
			fmt.Fprintln(os.Stderr, "usage: goswitch [MS]")
			os.Exit(2)
		}
	}
	until := time.Now().Add(time.Duration(ms) * time.Millisecond)
	var wg sync.WaitGroup
	res := make([]uint64, 4)
	for i := range res {
		wg.Add(1)
		go worker(i, until, &wg, &res[i])
	}
	wg.Wait()
	fmt.Println("ok")
}
