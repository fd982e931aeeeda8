/* The BPF program's object (pyframes.bpf.c, built by clang), in the
 * tools' read-only data: pybpf.c loads it from there. */
	.section .rodata
	.balign 8
	.globl py_bpf_obj_start
	.globl py_bpf_obj_end
py_bpf_obj_start:
	.incbin PYBPF_OBJ
py_bpf_obj_end:
	.section .note.GNU-stack,"",@progbits
