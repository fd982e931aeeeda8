/* The BPF program's object (sample.bpf.c, built by clang), in the
 * tools' read-only data: perfbpf.c loads it from there. */
	.section .rodata
	.balign 8
	.globl perf_bpf_obj_start
	.globl perf_bpf_obj_end
perf_bpf_obj_start:
	.incbin SBPF_OBJ
perf_bpf_obj_end:
	.section .note.GNU-stack,"",@progbits
